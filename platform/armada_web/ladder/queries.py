"""Ladder reads for the API and the pages: a rated game's ladder, a version's rating history,
the league and a race's battles (computed on demand from stored orders), and when a bot's next
ranked game should start."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from armada.games.mothership.battle import fight, prepare
from armada.games.mothership.league import battle_points
from armada_web.bots.models import BotVersion
from armada_web.errors import NotFound
from armada_web.games import spec
from armada_web.ladder import league, pairing, ratings
from armada_web.ladder.matchmaking import ranked_versions
from armada_web.ladder.models import LeagueEntry, Rating, RatingChange
from armada_web.matches.capacity import free, known_workers
from armada_web.matches.models import Match, MatchKind, MatchStatus


def ladder(game: str) -> QuerySet[Rating]:
    """The playing versions of rated game `game` that have played, best displayed score (mu - 3 sigma) first."""
    return (Rating.objects.filter(version__in=BotVersion.objects.playing().of_game(game), games__gt=0)
            .select_related("version", "version__bot", "version__bot__owner")
            .annotate(shown=F("mu") - 3 * F("sigma")).order_by("-shown", "version_id"))


def search_ladder(queryset: QuerySet[Any], text: str) -> QuerySet[Any]:
    """Rows whose bot name, race name or owner's username holds `text` (any ladder's queryset)."""
    text = text.strip()
    if not text:
        return queryset
    return queryset.filter(Q(version__bot__name__icontains=text) | Q(version__race_name__icontains=text)
                           | Q(version__bot__owner__username__icontains=text))


def rating_history(bot_id: int) -> list[tuple[Any, float, int]]:
    """(time, displayed score mu - 3 sigma, version number) after each ranked match, all versions, oldest first."""
    changes = (RatingChange.objects.filter(version__bot_id=bot_id).select_related("version")
               .order_by("at", "id"))
    return [(c.at, c.mu - 3 * c.sigma, c.version.number) for c in changes]


@dataclass(frozen=True)
class Battle:
    """One battle of a league race against another: points (MD-10) and damage both ways."""

    opponent: LeagueEntry
    points: int
    opponent_points: int
    dealt: int
    taken: int


def battles(entry: LeagueEntry) -> list[Battle]:
    """The race's battle with every other race in the league, in table order, played now in-engine."""
    others = [e for e in league.table() if e.pk != entry.pk]
    mine = prepare(entry.version.orders or {})
    rows = []
    for other in others:
        theirs = prepare(other.version.orders or {})
        _rounds, taken, dealt = fight(mine, theirs)
        points, opponent_points = battle_points(taken, dealt, mine[0], theirs[0])
        rows.append(Battle(other, points, opponent_points, dealt, taken))
    return rows


def league_entry_of(bot_id: int) -> LeagueEntry | None:
    return league.table().filter(version__bot_id=bot_id).first()


def pairing_of(a: int, b: int) -> tuple[LeagueEntry, LeagueEntry]:
    """The league entries of bots `a` and `b`, two different races of the league; NotFound otherwise."""
    entries = {e.version.bot_id: e for e in league.table().filter(version__bot_id__in=[a, b])}
    if a == b or a not in entries or b not in entries:
        raise NotFound("both bots must be races in the league (and differ)")
    return entries[a], entries[b]


@dataclass(frozen=True)
class NextGame:
    """When a bot's next ranked game should start: `seconds` from now (0: one is queued or running
    now), or None with `why` when it plays no ranked games now."""

    seconds: float | None
    why: str = ""


def next_ranked_game(bot_id: int, now: datetime | None = None) -> NextGame:
    """An estimate from matchmaking's own order: the bot's place among the ranked versions by
    `pairing.priority` (the one to play next first), each match taking two of them, at the rate
    ranked matches started in the last hour (or, with none, the live workers' rate)."""
    now = now or timezone.now()
    version = BotVersion.objects.playing().filter(bot_id=bot_id).select_related("bot").first()
    if version is None or not spec(version.bot.game).rated:
        return NextGame(None, "it plays no ranked games now (no playing version, or its game has none)")
    if Rating.objects.filter(version=version, benched=True).exists():
        return NextGame(None, "it is benched: upload a new version to play again")
    flying = Match.objects.filter(kind=MatchKind.RANKED, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING],
                                  participants__version=version)
    if flying.exists():
        return NextGame(0.0)
    workers = known_workers()
    if workers <= 0:
        return NextGame(None, "no worker is playing ranked games now")
    pool = list(ranked_versions(version.bot.game))
    rows = {r.version_id: r for r in Rating.objects.filter(version__in=pool)}
    candidates = [pairing.Candidate(v.pk, v.bot.owner_id or 0,
                                    ratings.Skill(rows[v.pk].mu, rows[v.pk].sigma) if v.pk in rows
                                    else ratings.initial_rating(),
                                    rows[v.pk].games if v.pk in rows else 0,
                                    rows[v.pk].last_played if v.pk in rows else None) for v in pool]
    idle_unit = max(1.0, len(candidates) * settings.ARMADA.match_seconds / (2 * workers))
    order = sorted(candidates, key=lambda c: (-pairing.priority(c, now, idle_unit), c.id))
    place = next((i for i, c in enumerate(order) if c.id == version.pk), len(order))
    started = Match.objects.filter(kind=MatchKind.RANKED, started__gte=now - timedelta(hours=1)).count()
    per_second = started / 3600 if started else free(workers) / settings.ARMADA.match_seconds
    if per_second <= 0:
        return NextGame(None, "no worker is free for ranked games now (a season's finals take them)")
    return NextGame(round((place // 2 + 1) / per_second, 1))
