"""Events' matches on the workers: sent as the workers' share allows, one event after the other.

`fill` keeps every running event's matches in flight (queued or running) at
`ladder.logic.matchmaking.target_depth(free workers)`, as ranked matchmaking keeps its own
(`matches.capacity`): the match workers take the events queue and the ranked queue round robin,
so while both have matches waiting each gets every other worker and neither can starve the
other. Among events, each pass sends one match of each event that has one to send, the event
with the fewest in flight (then the one that waited longest) first, so a large event cannot hold
up a small one. A round robin sends its planned games in order; a ladder event makes its next
game with the ladder's own pure pairing (`ladder.logic.matchmaking.pick_match`) over its entries, at most
one game in flight per two entries. A round robin whose games are all played finishes after its
last match (`play_on`); beat's `events.periodic.tick` does the rest.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from armada_web.bots.queries import entry_stopped
from armada_web.events import services
from armada_web.events.models import Event, EventEntry, EventFormat, EventGame, EventState
from armada_web.ladder.logic import matchmaking as matchmaking_logic
from armada_web.ladder.logic import ratings
from armada_web.matches.capacity import free, known_workers
from armada_web.matches.models import ENDED_BADLY, IN_FLIGHT, Match, MatchKind
from armada_web.matches.services import create_match

log = logging.getLogger(__name__)
MAX_TRIES = 3
RECENT = 200


#: Games one pass may skip at sending before it gives up until the next (each skip is stored: none comes twice).
SKIPS_A_PASS = 200


def in_flight() -> int:
    """Event matches queued or running (one count query)."""
    return Match.objects.filter(kind=MatchKind.EVENT, status__in=IN_FLIGHT).count()


def _send(game: EventGame, game_slug: str) -> bool:
    first, second = _seats(game)
    if first.version is None or second.version is None:
        # a deleted bot takes its versions along: name it, as the other reasons do (a trial read only
        # "a bot's version was deleted" for a bot its owner deleted)
        gone = [entry.bot_name for entry in (first, second) if entry.version is None and entry.bot_id is None]
        game.skipped = f"not played: {gone[0]} was deleted" if gone else "not played: a bot's version was deleted"
        game.save(update_fields=["skipped"])
        return False
    stopped = [why for why in (entry_stopped(version.bot) for version in (first.version, second.version)) if why]
    if stopped:  # staff disabled it, it was retired, its owner's account was deleted or disabled
        game.skipped = f"not played: {stopped[0]}"
        game.save(update_fields=["skipped"])
        return False
    match = create_match(game=game_slug, first=first.version, second=second.version, kind=MatchKind.EVENT,
                         counted=game.event.public)  # a private event's games are its own (matches.access)
    game.match, game.tries = match, game.tries + 1
    game.save(update_fields=["match", "tries"])
    return True


def _seats(game: EventGame) -> tuple[EventEntry, EventEntry]:
    seats = EventEntry.objects.select_related("version", "version__bot", "version__bot__owner",
                                              "version__bot__team").in_bulk(
        [game.first_id, game.second_id])
    return seats[game.first_id], seats[game.second_id]


def _next_planned(event: Event) -> EventGame | None:
    """A round robin's next game that needs a match (never sent, or its match ended void or failed)."""
    for game in event.games.filter(counted=False, skipped="").select_related("match").order_by("number"):
        if game.match is None:
            return game
        if game.match.status in ENDED_BADLY:
            if game.tries >= MAX_TRIES:
                game.skipped = f"not played: its {game.tries} matches were void or failed"
                game.save(update_fields=["skipped"])
                continue
            return game
    return None


def _next_ladder_game(event: Event, now: datetime) -> EventGame | None:
    """A ladder event's next game, chosen by the ladder's pairing among its entries (None while
    half its entries are playing, or with fewer than two)."""
    entries = list(event.entries.select_related("version__bot", "version__bot__owner", "version__bot__team"))
    flying = event.games.filter(match__status__in=IN_FLIGHT).count()
    if len(entries) < 2 or flying >= max(1, len(entries) // 2):
        return None
    pool = [matchmaking_logic.Candidate(e.pk, e.pk, ratings.Skill(e.mu, e.sigma), e.games, e.last_played)
            for e in entries if e.version is not None and not entry_stopped(e.version.bot)]
    recent = [matchmaking_logic.RecentGame(a, b) for a, b in event.games.exclude(skipped__startswith="not played")
              .order_by("-number").values_list("first_id", "second_id")[:RECENT]][::-1]
    idle_unit = max(1.0, len(pool) * settings.ARMADA.match_seconds / 2)
    pick = matchmaking_logic.pick_match(pool, recent, now, idle_unit)
    if pick is None:
        return None
    number = (event.games.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    EventEntry.objects.filter(pk__in=[pick.first.id, pick.second.id]).update(last_played=now)
    return EventGame.objects.create(event=event, number=number, first_id=pick.first.id, second_id=pick.second.id)


def _give_one(event_id: int, now: datetime) -> bool:
    """Send one match of the event (its row locked, so two fillers never send one game twice)."""
    with transaction.atomic():
        event = Event.objects.select_for_update().filter(pk=event_id, state=EventState.RUNNING).first()
        if event is None or (event.ends is not None and event.ends <= now):
            return False
        for _ in range(SKIPS_A_PASS):  # a game skipped at sending (a bot gone or disabled): the next one
            game = _next_planned(event) if event.format == EventFormat.ROUND_ROBIN else _next_ladder_game(event, now)
            if game is None:
                return False
            if _send(game, event.game):
                break
        else:
            return False
        Event.objects.filter(pk=event.pk).update(last_sent=now)
    return True


def fill(*, workers: int | None = None, now: datetime | None = None) -> int:
    """Send event matches until they hold target_depth(free workers) in flight; returns how many were sent.

    The matches in flight are counted again before each send: match workers recording event games
    at the same moment each fill (`play_on`), and a room counted once would let each send it all."""
    now = now or timezone.now()
    workers = known_workers() if workers is None else workers
    target = matchmaking_logic.target_depth(free(workers))
    room = target - in_flight()
    if room <= 0:
        return 0
    waited = F("last_sent").asc(nulls_first=True)  # never sent: first, on PostgreSQL as on SQLite (a review)
    running = list(Event.objects.filter(state=EventState.RUNNING)
                   .annotate(flying=Count("games", filter=Q(games__match__status__in=IN_FLIGHT)))
                   .order_by("flying", waited, "id").values_list("pk", flat=True))
    sent = 0
    while room > 0 and running:
        still = []
        for event_id in running:
            room = target - in_flight()
            if room <= 0:
                break
            if _give_one(event_id, now):
                sent += 1
                still.append(event_id)
        running = still
    return sent


def play_on(*, event_id: int, now: datetime | None = None) -> None:
    """After an event's match is recorded: finish a round robin that is done, send what the share allows."""
    event = Event.objects.filter(pk=event_id).first()
    if event is not None and event.state == EventState.RUNNING and all_played(event):
        services.finish(event=event, now=now)
    fill(now=now)


def all_played(event: Event) -> bool:
    """A round robin whose every planned game was counted or skipped."""
    return event.format == EventFormat.ROUND_ROBIN and not event.games.filter(counted=False, skipped="").exists()
