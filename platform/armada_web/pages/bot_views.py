"""Bot pages: my bots, a new bot, a bot's page, uploads, a version's page (refreshing while it is
validated), and the owner's actions. Thin: rules are the services' (armada_web.bots), what a user
may do comes from `bots.access.actions` as data, and refusals are shown by `pages.errors`."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.views.decorators.http import require_http_methods, require_POST

from armada_web.accounts.queries import signed_in
from armada_web.bots import moves, queries, services, storage
from armada_web.bots.access import actions, can_see_private, delete_refusal, is_owner, private_audience, upload_refusal
from armada_web.bots.logic.resources import shown
from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.queries import play_state
from armada_web.games import spec
from armada_web.jobs.notes import shown_note
from armada_web.ladder.challenges import choices
from armada_web.ladder.explain import lines_for_bot
from armada_web.ladder.queries import chart_points, next_ranked_game, standing, version_records
from armada_web.matches import listing
from armada_web.matches import queries as match_queries
from armada_web.matches.models import HeadToHead
from armada_web.matches.queries import Record
from armada_web.matches.rerun import replay_rerun_command
from armada_web.pages.bot_forms import BotForm, UploadForm
from armada_web.pages.chart import NARROW, WIDTH, line_chart, version_starts
from armada_web.pages.errors import form_error, refusals_go_to
from armada_web.pages.ladder_views import PER_PAGE, battles_shown
from armada_web.pages.pager import pager
from armada_web.pages.viewer_seats import seats_attribute
from armada_web.seasons.queries import placements_of_bot
from armada_web.storage.archives import check_request_size
from armada_web.teams.queries import teams_of
from armada_web.web.errors import DomainError, Invalid, http_status
from armada_web.web.inputs import parse_id, takes_upload
from armada_web.web.paging import keyed_page, page_number
from armada_web.web.snapshots import one_moment

VERSIONS_PER_PAGE = 20
OPPONENTS_PER_PAGE = 20
RECENT = 20


def _bot_page(pk: int) -> str:
    return reverse("bot", args=[pk])


MY_BOTS = 50


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    mine = queries.bots_of(request.user)
    page = keyed_page(mine.values_list("pk", flat=True), lambda ids: queries.with_newest(mine.filter(pk__in=ids)),
                      page_number(request.GET.get("page")), MY_BOTS, key=lambda b: b.pk)
    teams = list(teams_of(user=request.user))
    form = BotForm(teams=[t for t in teams if t.archived is None])
    return render(request, "bots/my_bots.html", {"bots": page.rows, "pager": pager(request, page), "form": form,
                                                 "teams": teams})


@login_required
def new_bot(request: HttpRequest) -> HttpResponse:
    form = BotForm(request.POST or None, teams=list(teams_of(user=request.user).filter(archived__isnull=True)),
                   initial={"team": request.GET.get("team")})
    if request.method == "POST" and form.is_valid():
        try:
            bot = services.create_bot(user=signed_in(request), **form.cleaned_data)
        except DomainError as exc:
            return render(request, "bots/new_bot.html", {"form": form}, status=form_error(form, exc))
        messages.success(request, f"Bot {bot.name} created. Upload its code.")
        return redirect("bot", pk=bot.pk)
    return render(request, "bots/new_bot.html", {"form": form})


def bot_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A bot: whether it plays (and why not), its place in its table, its kept record, its versions
    (paged) with their games and win rates, two versions compared, its last faults, its matches or
    league battles, a challenge button. Every read goes through an index, whatever its games, and
    all of them see one moment (a validation committing meanwhile shows wholly or not at all)."""
    with one_moment():
        return _bot_page_read(request, pk)


def _bot_page_read(request: HttpRequest, pk: int) -> HttpResponse:
    numbers = {name: page_number(request.GET.get(name), name) for name in ("versions", "opponents")}
    bot = get_object_or_404(queries.bots(), pk=pk)
    versions = keyed_page(queries.versions_of(bot).values_list("pk", flat=True),
                          lambda ids: bot.versions.select_related("uploaded_by").filter(pk__in=ids),
                          numbers["versions"], VERSIONS_PER_PAGE, key=lambda v: v.pk, name="versions")
    allowed = actions(user=request.user, bot=bot, versions=versions.rows)
    game = spec(bot.game)
    place = standing(bot, PER_PAGE)
    ids = [v.pk for v in versions.rows]  # rated games: the ratings' kept counts; a league's: its few seats
    per_version = version_records(ids) if game.rated else match_queries.version_records(bot.pk, ids)
    offered = choices(user=request.user, opponents=[bot]).get(bot.pk, [])  # (a limit reached: shown, disabled)
    context = {
        "bot": bot,
        "game": game,
        "state": play_state(bot),
        "standing": place,
        "table_link": (f"{reverse(game.table_url)}?page={place.page}#bot-{bot.pk}" if place else None),
        "record": match_queries.record_of(bot.pk),
        "versions": [(v, allowed.can_activate(v), per_version.get(v.pk), shown_note(v.detail, user=request.user))
                     for v in versions.rows],
        "versions_pager": pager(request, versions, "versions"),
        "actions": allowed,
        "upload_form": UploadForm(game=bot.game),
        "faults": match_queries.faults_of(bot.pk),
        "challenge_with": offered,
        "challenge_open": any(not c.refusal for c in offered),
        **(battles_shown(request, place.entry) if place is not None and place.entry is not None
           else {"battles": None}),
        "placements": placements_of_bot(bot.pk),
        "move_to": moves.move_targets(bot=bot, user=request.user) if allowed.owner else [],
        "next_game": next_ranked_game(bot.pk) if game.rated else None,
        # (a league's versions play no matches unless entered in events: no comparison without one)
        **(_comparison(request, bot, versions.rows, per_version) if game.rated or any(per_version.values()) else {}),
        **(_history(request, bot, numbers["opponents"]) if game.rated else {}),
    }
    return render(request, "bots/bot.html", context)


def _number(text: str | None) -> int | None:
    return int(text) if text and text.isascii() and text.isdigit() else None


def _comparison(request: HttpRequest, bot: Bot, versions: list[BotVersion],
                per_version: dict[int, Record]) -> dict[str, object]:
    """Two versions side by side (?a=N&b=M, any two of the bot's; by default the two newest that
    played among `versions`, the page shown). Asked for a version it does not have, or one version
    twice, the page says so (`compare_problem`) above what it shows instead."""
    numbers = list(bot.versions.order_by("-number").values_list("number", flat=True))
    played = [v.number for v in versions if per_version.get(v.pk)]
    given = request.GET.get("a"), request.GET.get("b")
    asked = _number(given[0]), _number(given[1])
    pair = (played[0], played[1]) if len(played) >= 2 else None
    problem = ""
    if asked[0] in numbers and asked[1] in numbers and asked[0] != asked[1]:
        pair = (int(asked[0] or 0), int(asked[1] or 0))
    elif any(text is not None for text in given):
        missing = [text for text, number in zip(given, asked, strict=True) if number not in numbers]
        problem = (f"This bot has no version {missing[0][:20]}" if missing and missing[0]
                   else "Choose two versions" if missing else "Choose two different versions")
        shown = f"v{pair[0]} against v{pair[1]}" if pair else "no comparison"
        held = (f"its only version: v{numbers[0]}" if len(numbers) == 1
                else f"its versions: v{numbers[-1]} to v{numbers[0]}")
        problem += f" ({held}); showing {shown} instead." if numbers else "."
    return {"numbers": numbers, "compare_problem": problem,
            "comparison": match_queries.compare_versions(bot.pk, *pair) if pair else None}


def _history(request: HttpRequest, bot: Bot, opponents_page: int) -> dict[str, object]:
    """The rating chart (downsampled), recent matches and the head-to-head table: each read through
    an index, whatever the bot's number of games."""
    points, rated = chart_points(bot.pk)
    ends = (f"{points[0].at:%Y-%m-%d %H:%M}", f"{points[-1].at:%Y-%m-%d %H:%M}") if points else ("", "")
    def drawn(width: int) -> SafeString:
        return line_chart([p.score for p in points],
                          [f"{p.at:%Y-%m-%d %H:%M} v{p.version}: {p.score:.2f} (match #{p.match_id})" for p in points],
                          title=f"{bot.name}: score (mu - 3 sigma) after its ranked matches",
                          y_label="score (mu - 3 sigma)", x_label=f"ranked matches ({rated})", x_ends=ends,
                          links=[reverse("match", args=[p.match_id]) for p in points],
                          marks=version_starts([p.version for p in points]), width=width)

    chart = drawn(WIDTH) + drawn(NARROW)  # (the page shows one of the two: site.css)
    opponents = keyed_page(match_queries.head_to_head(bot.pk).values_list("pk", flat=True),
                           lambda ids: HeadToHead.objects.filter(pk__in=ids), opponents_page, OPPONENTS_PER_PAGE,
                           key=lambda h: h.pk, name="opponents")
    recent = listing.page(chosen=listing.Filters(bot=bot), size=RECENT, viewer=request.user)
    lines = lines_for_bot(recent.matches, bot.pk)
    for match in recent.matches:  # pages/_match_rows.html shows it under the players
        match.rating_line = lines.get(match.pk, "")  # type: ignore[attr-defined]
    return {"chart": chart, "points": len(points), "rated": rated,
            "recent": recent.matches, "more_matches": recent.older is not None,
            "records": opponents.rows, "records_pager": pager(request, opponents, "opponents")}


def _own_bot(request: HttpRequest, pk: int) -> Bot:
    """The bot, when the user owns it (anyone else gets the same 404 as for a missing bot)."""
    bot = get_object_or_404(Bot, pk=pk)
    if not is_owner(bot=bot, user=request.user):
        raise Http404("no such bot")
    return bot


@takes_upload
@login_required
def upload(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    refusal = upload_refusal(bot=bot)
    if refusal:
        messages.error(request, refusal)
        return redirect("bot", pk=bot.pk)
    if request.method != "POST":
        return render(request, "bots/upload.html", {"bot": bot, "form": UploadForm(game=bot.game)})
    try:
        check_request_size(content_length=request.META.get("CONTENT_LENGTH"), game=bot.game)
    except DomainError as exc:  # refused before the body is read (past BodyLimit's): no form to show it on
        messages.error(request, str(exc))
        return render(request, "bots/upload.html", {"bot": bot, "form": UploadForm(game=bot.game)},
                      status=http_status(exc))
    form = UploadForm(request.POST, request.FILES, game=bot.game)
    if not form.is_valid():
        return render(request, "bots/upload.html", {"bot": bot, "form": form}, status=400)
    handle = form.cleaned_data["file"]
    try:
        version = services.upload_version(bot=bot, user=signed_in(request), filename=handle.name, data=handle.file)
    except DomainError as exc:
        return render(request, "bots/upload.html", {"bot": bot, "form": form}, status=form_error(form, exc, "file"))
    messages.success(request, f"Version {version.number} uploaded; it is being validated.")
    return redirect("bot-version", pk=bot.pk, number=version.number)


def version_page(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    bot = get_object_or_404(queries.bots(), pk=pk)
    version = get_object_or_404(bot.versions, number=number)
    game = spec(bot.game)
    private = can_see_private(user=request.user, bot=bot)
    context = {"bot": bot, "version": version, "private": private,
               "audience": private_audience(bot=bot, user=request.user) if private else "",
               "refresh": not version.is_finished, "game": game, "state": play_state(bot),
               "reason": version.detail.removeprefix(f"{version.status}: "), "resources": shown(version.resources),
               "detail": shown_note(version.detail, user=request.user),
               "crash_line": queries.crash_line(version=version) if private else "",
               "orders": json.dumps(version.orders, indent=2) if version.orders and private else "",  # as sent
               "validation_replay_url": reverse("api-bot-version-replay", args=[version.pk]),
               "replay_file": storage.validation_replay_download_name(version),
               "rerun": replay_rerun_command(replay_file=storage.validation_replay_download_name(version),
                                             game_seed=version.validation_seed, seat=1,
                                             bot_name=bot.name) if private else "",
               "viewer_seats": seats_attribute({1: bot.name, 2: f"{game.validation_opponent} starter"},
                                               {1} if is_owner(bot=bot, user=request.user) else set())}
    return render(request, "bots/version.html", context)


def version_source(request: HttpRequest, pk: int, number: int) -> FileResponse:
    bot = get_object_or_404(Bot, pk=pk)
    if not can_see_private(user=request.user, bot=bot):
        raise Http404("no such version")
    version = get_object_or_404(bot.versions, number=number)
    handle = storage.open_archive(version)
    if handle is None:
        raise Http404("no such version")
    response = FileResponse(handle, as_attachment=True, filename=storage.download_name(version),
                            content_type="application/zip")
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
@refusals_go_to(_bot_page)
def set_active(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    services.set_active(bot=bot, user=signed_in(request), version_id=parse_id(request.POST.get("version"),
                                                                                what="version"))
    messages.success(request, "Active version changed.")
    return redirect("bot", pk=bot.pk)


@login_required
@require_http_methods(["GET", "POST"])
@refusals_go_to(_bot_page)
def retire(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks to confirm (retiring cannot be undone), POST retires."""
    bot = _own_bot(request, pk)
    if request.method != "POST":
        return render(request, "pages/confirm.html", {
            "heading": f"Retire {bot.name} ({bot.get_game_display()})?", "button": f"Retire {bot.name}",
            "danger": True, "cancel": reverse("bot", args=[bot.pk]), "lines": [
                ("It stops playing now: no more ladder matches, challenges or season games. Its versions, "
                 "matches, ratings and results stay." if spec(bot.game).rated else
                 f"It leaves the {spec(bot.game).table_label.lower()} now (the table is worked out again "
                 "without it) and plays no more event games. Its versions and results stay."),
                "This cannot be undone: to play again, create a new bot."
                + (f" It is the team {bot.team.name}'s bot: it retires for every member." if not bot.team.personal
                   else "")]})
    services.retire_bot(bot=bot, user=signed_in(request))
    messages.success(request, f"{bot.name} is retired: it plays no more, its history stays.")
    return redirect("bot", pk=bot.pk)


@login_required
@require_POST
@refusals_go_to(_bot_page)
def move(request: HttpRequest, pk: int) -> HttpResponse:
    """Move a bot of your personal team to a team you are in (bots.moves)."""
    bot = _own_bot(request, pk)
    if request.POST.get("confirm") != "yes":  # (the browser asks for the box; a bare POST is refused too)
        raise Invalid("tick the box to confirm: a bot moved to a team does not come back")
    moved = moves.move_bot(bot=bot, user=signed_in(request), team=request.POST.get("team"))
    messages.success(request, f"{moved.name} now belongs to the team {moved.team.name}, with all its history.")
    return redirect("bot", pk=bot.pk)


@login_required
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    bot = _own_bot(request, pk)
    if request.method == "POST":
        name = bot.name
        services.delete_bot(bot=bot, user=signed_in(request))
        messages.success(request, f"{name} is deleted.")
        return redirect("my-bots")
    refusal = delete_refusal(bot=bot, user=request.user, has_versions=bot.versions.exists())
    return render(request, "bots/delete.html", {"bot": bot, "refusal": refusal})
