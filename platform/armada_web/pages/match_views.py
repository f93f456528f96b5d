"""The match browser (`/matches/`: filters, cursor pages) and the match page: the viewer, the
result naming the bots, each seat; the owner of a bot also sees its log beside the viewer, in step
with it (pages/static/pages/match-log.js), its crash first."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from armada.botspec import BUILTIN_PREFIX
from armada_web.bots.access import can_see_private, is_owner, private_audience
from armada_web.games import SPECS, Ranking, spec
from armada_web.jobs.notes import shown_note
from armada_web.ladder.explain import explained
from armada_web.matches import capacity, listing, queries
from armada_web.matches.models import IN_FLIGHT, Match, MatchStatus, Participant
from armada_web.pages.errors import form_error
from armada_web.pages.match_drawings import drawing_context
from armada_web.pages.match_forms import MatchFilterForm
from armada_web.pages.match_timing import timing_context
from armada_web.pages.viewer_seats import seats_attribute
from armada_web.web.errors import DomainError

PER_PAGE = 50


def match_list(request: HttpRequest) -> HttpResponse:
    """Matches newest first with the same filters as /api/matches/ (matches.listing), paged by cursor."""
    form = MatchFilterForm(request.GET or None)
    page: listing.Page | None = None
    status = 200
    if form.is_bound and not form.is_valid():
        status = 400
    else:
        try:
            chosen = listing.filters(**(form.cleaned_data if form.is_bound else {}))
            page = listing.page(chosen=chosen, cursor=request.GET.get("cursor"), size=PER_PAGE,
                                viewer=request.user)
        except DomainError as exc:
            status = form_error(form, exc)
    chosen_game = form.cleaned_data.get("game") if form.is_bound and form.is_valid() else ""
    league = SPECS.get(chosen_game) if chosen_game and SPECS[chosen_game].ranking == Ranking.LEAGUE else None
    context = {"form": form, "page": page, "league": league,
               "newer": _cursor_link(request, page.newer) if page and page.newer else "",
               "older": _cursor_link(request, page.older) if page and page.older else "",
               "paged": bool(request.GET.get("cursor"))}
    return render(request, "pages/matches.html", context, status=status)


def _cursor_link(request: HttpRequest, cursor: str) -> str:
    query = request.GET.copy()
    query["cursor"] = cursor
    return f"?{query.urlencode()}"


#: How a result's outcome reads after "won" (the engines' outcome names).
OUTCOME_WORDS = {"elimination": "by elimination", "turn_limit": "at the turn limit", "destruction": "by destruction",
                 "damage": "on damage", "forfeit": "by forfeit (the other bot faulted)"}


def still_counted_in(match: Match) -> str:
    """Where a game voided after it finished still counts, or "" (nowhere): a counted finals game
    stays counted (docs/seasons.md), and so does an event game whose event had ended (its table
    is final); a ranked game is taken out of the ratings, a running event's table counts it no more."""
    try:
        game = match.event_game
    except ObjectDoesNotExist:
        pass
    else:
        return f"event {game.event.name}'s final table" if game.counted else ""
    try:
        finals = match.finals_game
    except ObjectDoesNotExist:
        return ""
    return f"the finals of {finals.season.name}" if finals.counted else ""


def result_line(match: Match, seats: list[Participant], *, still_counts: str = "", uncounted: str = "") -> str:
    """`alpha (seat 1) won by elimination.`, or `Draw.`; '' before a result. A game voided after it
    finished counts for nothing: `Void: it counts for nothing (as played: alpha ... won ...).`, unless
    it still counts somewhere (`still_counts`, what `still_counted_in` says); so does an event's or a
    finals' game skipped before its result came (`uncounted`, why)."""
    outcome = match.outcome or {}
    if not outcome:
        return ""
    winner = next((p for p in seats if p.seat == outcome.get("winner")), None)
    how = str(outcome.get("outcome") or "")
    if winner is None:
        line = "Draw." if how in ("", "draw") else f"Draw ({OUTCOME_WORDS.get(how, how)})."
    else:
        line = f"{winner.name} (seat {winner.seat}) won {OUTCOME_WORDS.get(how, 'by ' + how)}."
    if match.status == MatchStatus.VOID:
        if still_counts:
            return f"{line} Void since, but it still counts in {still_counts}."
        return f"Void: it counts for nothing (as played: {line[:-1]})."
    if uncounted:
        return f"It counts for nothing: {uncounted} (as played: {line[:-1]})."
    return line


def uncounted_why(match: Match) -> str:
    """Why a finished event or finals match counts for nothing, its game skipped before its result came
    ("the event ended": an organiser's trial saw a match finished 0.2 s after the early end shown as a
    result the table left out); '' for any other match."""
    if match.status != MatchStatus.FINISHED:
        return ""
    for relation in ("event_game", "finals_game"):
        try:
            game = getattr(match, relation)
        except ObjectDoesNotExist:
            continue
        return "" if game.counted or not game.skipped else str(game.skipped).removeprefix("not played: ")
    return ""


def played_for(match: Match) -> tuple[str, str] | None:
    """(what, address) of the event or season whose game `match` is (its game's latest match), else None:
    the page names and links it where it said only "event" or "finals"."""
    try:
        event = match.event_game.event
    except ObjectDoesNotExist:
        pass
    else:
        return f"event {event.name}", reverse("event", args=[event.slug])
    try:
        season = match.finals_game.season
    except ObjectDoesNotExist:
        return None
    return f"finals of {season.name}", reverse("season", args=[season.slug])


def match_page(request: HttpRequest, pk: int) -> HttpResponse:
    match = queries.match_for(user=request.user, match_id=pk)
    if match is None:
        raise Http404("no such match")
    finished = match.has_replay
    seats = list(match.participants.all())
    private = [(p, p.version.bot) for p in seats
               if p.version is not None and can_see_private(user=request.user, bot=p.version.bot)]
    logs: list[dict[str, Any]] = []
    if private:
        replay = queries.replay_of(match)
        for p, bot in private:
            log = queries.seat_requests(p, replay)
            logs.append({"seat": p, "log": log, "faulted": p.status not in ("", "ok"),
                         "caught": queries.caught(log=log), "audience": private_audience(bot=bot, user=request.user)})
    starter = BUILTIN_PREFIX + spec(match.game).validation_opponent
    still_counts = still_counted_in(match) if match.status == MatchStatus.VOID else ""
    uncounted = uncounted_why(match)
    yours = {p.seat for p in seats if p.version is not None and is_owner(bot=p.version.bot, user=request.user)}
    context = {
        "match": match, "game": spec(match.game), "seats": seats, "logs": logs, "finished": finished,
        "reason": shown_note(match.reason, user=request.user),
        "refresh": match.status in IN_FLIGHT,
        "waiting": capacity.waiting(kind=match.kind, status=match.status),
        "result": result_line(match, seats, still_counts=still_counts, uncounted=uncounted),
        "counts_for_nothing": (match.status == MatchStatus.VOID and not still_counts) or bool(uncounted),
        "played_for": played_for(match),
        "yours": yours,
        "viewer_seats": seats_attribute({p.seat: p.name for p in seats}, yours),
        "replay_url": reverse("api-match-replay", args=[pk]) if finished else None,
        # Runs as written: starters in both seats (the page says to put your bots' folders there).
        "command": f"armada play {starter} {starter} --game {match.game} --from-state match-{pk}.json.gz#turn=0",
        **(timing_context(user=request.user, match=match, seats=seats) if finished else {}),
        **(drawing_context(user=request.user, match=match, seats=seats) if finished else {}),
    }
    context["rating_changes"] = explained(seats)  # pages/_rating_changes.html
    return render(request, "pages/match.html", context)
