"""Bot pages: my bots, a new bot, a bot's page, uploads, a version's page (refreshing while it is
validated), and the owner's actions. Thin: rules are the services' (armada_web.bots), what a user
may do comes from `bots.access.actions` as data, and refusals are shown by `pages.errors`."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from armada_web.accounts.queries import signed_in
from armada_web.archives import check_request_size
from armada_web.bots import queries, services, storage
from armada_web.bots.access import actions, can_see_private, is_owner, upload_refusal
from armada_web.bots.models import Bot
from armada_web.errors import DomainError, http_status
from armada_web.games import spec
from armada_web.ladder.queries import next_ranked_game, rating_history
from armada_web.matches import queries as match_queries
from armada_web.pages.bot_forms import BotForm, UploadForm
from armada_web.pages.chart import line_chart
from armada_web.pages.errors import form_error, refusals_go_to
from armada_web.seasons.queries import placements_of_bot


def _bot_page(pk: int) -> str:
    return reverse("bot", args=[pk])


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    bots = queries.bots_of(request.user).prefetch_related("versions")
    return render(request, "bots/my_bots.html", {"bots": bots, "form": BotForm()})


@login_required
def new_bot(request: HttpRequest) -> HttpResponse:
    form = BotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            bot = services.create_bot(user=signed_in(request), **form.cleaned_data)
        except DomainError as exc:
            return render(request, "bots/new_bot.html", {"form": form}, status=form_error(form, exc))
        messages.success(request, f"Bot {bot.name} created. Upload its code.")
        return redirect("bot", pk=bot.pk)
    return render(request, "bots/new_bot.html", {"form": form})


def bot_page(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(queries.bots(), pk=pk)
    versions = list(queries.versions_of(bot))
    allowed = actions(user=request.user, bot=bot, versions=versions)
    context = {
        "bot": bot,
        "game": spec(bot.game),
        "versions": [(v, allowed.can_activate(v)) for v in versions],
        "actions": allowed,
        "upload_form": UploadForm(),
        "placements": placements_of_bot(bot.pk),
        "next_game": next_ranked_game(bot.pk) if spec(bot.game).rated else None,
        **_history(bot),
    }
    return render(request, "bots/bot.html", context)


def _history(bot: Bot) -> dict[str, object]:
    """The rating-history chart, recent matches and the record against each opponent."""
    history = rating_history(bot.pk)
    chart = line_chart([score for _at, score, _n in history],
                       [f"{at:%Y-%m-%d %H:%M} v{n}: {score:.2f}" for at, score, n in history],
                       title=f"{bot.name}: score (mu - 3 sigma) after each ranked match")
    return {"chart": chart, "history": history, "recent": list(match_queries.of_bot(bot.pk)[:20]),
            "records": match_queries.records(bot.pk)}


def _own_bot(request: HttpRequest, pk: int) -> Bot:
    """The bot, when the user owns it (anyone else gets the same 404 as for a missing bot)."""
    bot = get_object_or_404(Bot, pk=pk)
    if not is_owner(bot=bot, user=request.user):
        raise Http404("no such bot")
    return bot


@login_required
def upload(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    refusal = upload_refusal(bot=bot)
    if refusal:
        messages.error(request, refusal)
        return redirect("bot", pk=bot.pk)
    if request.method != "POST":
        return render(request, "bots/upload.html", {"bot": bot, "form": UploadForm()})
    try:
        check_request_size(content_length=request.META.get("CONTENT_LENGTH"))
    except DomainError as exc:  # refused before the body is read: no form to show it on
        messages.error(request, str(exc))
        return render(request, "bots/upload.html", {"bot": bot, "form": UploadForm()}, status=http_status(exc))
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "bots/upload.html", {"bot": bot, "form": form}, status=400)
    handle = form.cleaned_data["file"]
    try:
        version = services.upload_version(bot=bot, user=signed_in(request), filename=handle.name, data=handle.read())
    except DomainError as exc:
        return render(request, "bots/upload.html", {"bot": bot, "form": form}, status=form_error(form, exc, "file"))
    messages.success(request, f"Version {version.number} uploaded; it is being validated.")
    return redirect("bot-version", pk=bot.pk, number=version.number)


def version_page(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    bot = get_object_or_404(queries.bots(), pk=pk)
    version = get_object_or_404(bot.versions, number=number)
    context = {"bot": bot, "version": version, "private": can_see_private(user=request.user, bot=bot),
               "refresh": not version.is_finished}
    return render(request, "bots/version.html", context)


def version_source(request: HttpRequest, pk: int, number: int) -> FileResponse:
    bot = get_object_or_404(Bot, pk=pk)
    if not can_see_private(user=request.user, bot=bot):
        raise Http404("no such version")
    version = get_object_or_404(bot.versions, number=number)
    handle = storage.open_archive(version)
    if handle is None:
        raise Http404("no such version")
    response = FileResponse(handle, as_attachment=True, filename=f"{bot.name}-v{version.number}.zip",
                            content_type="application/zip")
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
@refusals_go_to(_bot_page)
def set_active(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    services.set_active(bot=bot, user=signed_in(request), version_id=request.POST.get("version", ""))
    messages.success(request, "Active version changed.")
    return redirect("bot", pk=bot.pk)


@login_required
@require_POST
@refusals_go_to(_bot_page)
def retire(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    services.retire_bot(bot=bot, user=signed_in(request))
    messages.success(request, f"{bot.name} is retired: it plays no more, its history stays.")
    return redirect("bot", pk=bot.pk)


@login_required
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    if request.method == "POST":
        name = bot.name
        services.delete_bot(bot=bot, user=signed_in(request))
        messages.success(request, f"{name} is deleted.")
        return redirect("my-bots")
    return render(request, "bots/delete.html", {"bot": bot})
