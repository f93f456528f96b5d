"""Bot pages: my bots, a new bot, a bot's page, uploads, a version's page (refreshing while
it is validated), and the owner's actions. Thin: everything happens in services."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from armada_web.accounts.queries import signed_in
from armada_web.api.permissions import can_see_private
from armada_web.bots import queries, services, storage
from armada_web.bots.forms import BotForm, UploadForm
from armada_web.bots.models import Bot
from armada_web.ladder.queries import rating_history
from armada_web.matches import queries as match_queries
from armada_web.pages.chart import line_chart


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    bots = queries.bots_of(request.user).prefetch_related("versions")
    return render(request, "bots/my_bots.html", {"bots": bots, "form": BotForm()})


@login_required
def new_bot(request: HttpRequest) -> HttpResponse:
    form = BotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            bot = services.create_bot(signed_in(request), **form.cleaned_data)
        except services.BotError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Bot {bot.name} created. Upload its code.")
            return redirect("bot", pk=bot.pk)
    return render(request, "bots/new_bot.html", {"form": form})


def bot_page(request: HttpRequest, pk: int) -> HttpResponse:
    bot = get_object_or_404(queries.bots(), pk=pk)
    context = {
        "bot": bot,
        "versions": queries.versions_of(bot),
        "owner_view": request.user.is_authenticated and bot.owner_id == request.user.pk,
        "private": can_see_private(request.user, bot),
        "upload_form": UploadForm(),
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
    bot = get_object_or_404(Bot, pk=pk)
    if bot.owner_id != request.user.pk:
        raise Http404("no such bot")
    return bot


@login_required
def upload(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    if bot.retired is not None:
        messages.error(request, f"{bot.name} is retired and takes no new versions; create a new bot")
        return redirect("bot", pk=bot.pk)
    if request.method == "POST":
        try:
            services.check_request_size(request.META.get("CONTENT_LENGTH"))
        except services.BotError as exc:
            messages.error(request, str(exc))
            return render(request, "bots/upload.html", {"bot": bot, "form": UploadForm()}, status=exc.status)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        handle = form.cleaned_data["file"]
        try:
            version = services.upload_version(bot, signed_in(request), handle.name, handle.read())
        except services.BotError as exc:
            form.add_error("file", str(exc))
        else:
            messages.success(request, f"Version {version.number} uploaded; it is being validated.")
            return redirect("bot-version", pk=bot.pk, number=version.number)
    return render(request, "bots/upload.html", {"bot": bot, "form": form}, status=400 if form.errors else 200)


def version_page(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    bot = get_object_or_404(queries.bots(), pk=pk)
    version = get_object_or_404(bot.versions, number=number)
    context = {"bot": bot, "version": version, "private": can_see_private(request.user, bot),
               "owner_view": request.user.is_authenticated and bot.owner_id == request.user.pk,
               "refresh": not version.is_finished}
    return render(request, "bots/version.html", context)


def version_source(request: HttpRequest, pk: int, number: int) -> FileResponse:
    bot = get_object_or_404(Bot, pk=pk)
    if not can_see_private(request.user, bot):
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
def set_active(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    try:
        services.set_active(bot, signed_in(request), request.POST.get("version", ""))
        messages.success(request, "Active version changed.")
    except services.BotError as exc:
        messages.error(request, str(exc))
    return redirect("bot", pk=bot.pk)


@login_required
@require_POST
def retire(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    services.retire_bot(bot, signed_in(request))
    messages.success(request, f"{bot.name} is retired: it plays no more, its history stays.")
    return redirect("bot", pk=bot.pk)


@login_required
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    if request.method == "POST":
        name = bot.name
        services.delete_bot(bot, signed_in(request))
        messages.success(request, f"{name} is deleted.")
        return redirect("my-bots")
    return render(request, "bots/delete.html", {"bot": bot})
