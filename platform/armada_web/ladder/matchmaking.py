"""Matchmaking in the database: top the ranked queue up, reading a bounded set of candidates.

`fill_queue` keeps the ranked matches queued or running at `matchmaking_logic.target_depth(free workers)`
(the live workers less those a season's finals claim, `matches.capacity`), choosing each match
of each rated game (games.rated_games) with the pure `matchmaking_logic.pick_bounded` over a
`RatingPool`: the longest-waiting versions as seeds and each seed's neighbours in mu as
opponents, each read through an index of the Rating table, so a tick costs the same at 100 and
at 10,000 playing versions (`pick_match`'s rules and no-starvation bound; bench/ranking.py
measures the rules). A version is marked as played
(Rating.last_played) when its match is made, and due its priority bonus earlier
(`matchmaking_logic.mark_played`, Rating.due: the seed order the pool reads through an index), so
the next pick, in this tick or the next, sees it as busy.
"""

from __future__ import annotations

import statistics
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Case, DateTimeField, Value, When
from django.utils import timezone

from armada_web.bots.models import BotVersion
from armada_web.games import rated_games
from armada_web.ladder.logic import matchmaking as matchmaking_logic
from armada_web.ladder.logic import ratings
from armada_web.ladder.models import RANKED, Rating
from armada_web.ladder.ratings import ensure_rating
from armada_web.matches import services
from armada_web.matches.capacity import count_match_workers, free
from armada_web.matches.models import ENDED_BADLY, IN_FLIGHT, Match, MatchKind, MatchStatus, Participant

__all__ = ["candidates", "fill_queue", "in_flight", "ranked_versions", "recent_games", "unit"]
#: Recent ranked games read for the repeat penalty and the sides.
RECENT_GAMES = 200


def ranked_versions(game: str) -> Any:
    """The versions of `game` that play ranked matches: playing, not benched, with their ratings."""
    return (BotVersion.objects.playing().of_game(game).exclude(rating__benched=True)
            .select_related("bot", "rating"))


class RatingPool:
    """The ranked candidates of a rated game, read a few at a time through the Rating table's
    partial indexes (`rating_seed_order`, `rating_near_mu`): a `matchmaking_logic.Pool`."""

    def __init__(self, game: str) -> None:
        self.rows = Rating.objects.filter(RANKED, game=game)

    def size(self) -> int:
        """How many candidates there are (an index-only count)."""
        return int(self.rows.count())

    @staticmethod
    def _candidates(rows: Any) -> list[matchmaking_logic.Candidate]:
        fields = ("version_id", "version__bot__owner_id", "mu", "sigma", "games", "last_played", "due",
                  "version__bot__team_id")
        return [matchmaking_logic.Candidate(vid, owner, ratings.Skill(mu, sigma), games, last, due, team)
                for vid, owner, mu, sigma, games, last, due, team in rows.values_list(*fields)]

    def longest_waiting(self, count: int) -> list[matchmaking_logic.Candidate]:
        never = self._candidates(self.rows.filter(last_played__isnull=True).order_by("version_id")[:count])
        if len(never) >= count:
            return never
        waited = self.rows.filter(last_played__isnull=False).order_by("due", "version_id")
        return never + self._candidates(waited[: count - len(never)])

    def near(self, seed: matchmaking_logic.Candidate, count: int) -> list[matchmaking_logic.Candidate]:
        others = self.rows.exclude(version__bot__owner_id=seed.owner_id)
        if seed.team_id is not None:
            others = others.exclude(version__bot__team_id=seed.team_id)
        mu = seed.rating.mu
        up = others.filter(mu__gte=mu).exclude(version_id=seed.id).order_by("mu", "version_id")[:count]
        down = others.filter(mu__lt=mu).order_by("-mu", "-version_id")[:count]
        return self._candidates(up) + self._candidates(down)

    def around(self, candidate: matchmaking_logic.Candidate, count: int) -> list[matchmaking_logic.Candidate]:
        """The candidates nearest `candidate` in mu, of every owner: up to `count` at or above its mu and
        up to `count` below (two ranges of `rating_near_mu`; `estimates.opponent_share` reads them)."""
        mu = candidate.rating.mu
        up = self.rows.filter(mu__gte=mu).order_by("mu", "version_id")[:count]
        down = self.rows.filter(mu__lt=mu).order_by("-mu", "-version_id")[:count]
        return self._candidates(up) + self._candidates(down)


def candidates(game: str) -> tuple[list[matchmaking_logic.Candidate], dict[int, BotVersion]]:
    """Every ranked version of `game` as pairing sees them (one query): for small ladders, checks
    and the bench; the tick itself reads a `RatingPool`."""
    out: list[matchmaking_logic.Candidate] = []
    by_id: dict[int, BotVersion] = {}
    for version in ranked_versions(game):
        try:
            row = version.rating
        except Rating.DoesNotExist:
            row = ensure_rating(version=version)
        assert version.bot.owner_id is not None
        out.append(matchmaking_logic.Candidate(version.pk, version.bot.owner_id, ratings.Skill(row.mu, row.sigma),
                                               row.games, row.last_played, row.due, version.bot.team_id))
        by_id[version.pk] = version
    return out, by_id


def recent_games(game: str, limit: int = RECENT_GAMES) -> list[matchmaking_logic.RecentGame]:
    """The latest ranked matches' seats of `game`, oldest first (one query)."""
    rows = (Participant.objects.filter(match__kind=MatchKind.RANKED, match__game=game)
            .exclude(match__status__in=ENDED_BADLY)
            .order_by("-match_id", "seat").values_list("match_id", "seat", "version_id")[: 2 * limit])
    seats: dict[int, dict[int, int]] = {}
    for match_id, seat, version_id in rows:
        if version_id is not None:
            seats.setdefault(match_id, {})[seat] = version_id
    return [matchmaking_logic.RecentGame(s[1], s[2]) for _, s in sorted(seats.items()) if 1 in s and 2 in s]


#: Finished ranked matches whose median length the estimates use, and the fewest that count.
LENGTH_SAMPLE = 50
LENGTH_ENOUGH = 3


def ranked_match_seconds(game: str) -> float:
    """A ranked match's typical length: the median of the latest LENGTH_SAMPLE finished ranked matches
    of `game` (from their start to their end), else `ARMADA_MATCH_SECONDS` (as the finals measure theirs)."""
    rows = (Match.objects.filter(kind=MatchKind.RANKED, status=MatchStatus.FINISHED, game=game,
                                 started__isnull=False, finished__isnull=False)
            .order_by("-finished").values_list("started", "finished")[:LENGTH_SAMPLE])
    durations = [(finished - started).total_seconds() for started, finished in rows if started and finished]
    if len(durations) >= LENGTH_ENOUGH:
        return max(0.1, statistics.median(durations))
    return float(settings.ARMADA.match_seconds)


def unit(size: int, workers: int, match_seconds: float) -> float:
    """The idle unit of a ladder of `size` candidates on `workers` workers: about the seconds between
    two games of a bot (bots x match seconds / (2 x workers)), `match_seconds` the measured length of
    its ranked matches (`ranked_match_seconds`; the setting until a few have finished). A trial's
    demo site played 3-second matches with the setting's 30: every established bot's next game
    was estimated 10 times too late, and the bonuses outweighed real waiting 10 times longer."""
    return max(1.0, size * match_seconds / (2 * max(workers, 1)))


def in_flight() -> int:
    """Ranked matches queued or running."""
    return Match.objects.filter(kind=MatchKind.RANKED, status__in=IN_FLIGHT).count()


def fill_queue(*, workers: int | None = None, now: datetime | None = None) -> list[int]:
    """Create ranked matches until the queue holds target_depth(the workers a season's finals leave
    free, matches.capacity); returns their ids."""
    workers = count_match_workers() if workers is None else workers
    need = matchmaking_logic.target_depth(free(workers)) - in_flight()
    made: list[int] = []
    for game in rated_games():
        if need - len(made) <= 0:
            break
        made += _fill(game.slug, need - len(made), workers, now or timezone.now())
    return made


def _fill(game: str, need: int, workers: int, now: datetime) -> list[int]:
    pool = RatingPool(game)
    size = pool.size()
    if size < 2:
        return []
    recent = recent_games(game)
    idle_unit = unit(size, workers, ranked_match_seconds(game))
    made: list[int] = []
    for _ in range(need):
        pick = matchmaking_logic.pick_bounded(pool, recent, now, idle_unit)
        if pick is None:
            break
        versions = BotVersion.objects.select_related("bot").in_bulk([pick.first.id, pick.second.id])
        with transaction.atomic():
            match = services.create_match(game=game, first=versions[pick.first.id], second=versions[pick.second.id])
            due = {c.id: matchmaking_logic.mark_played(c, now, idle_unit).due for c in (pick.first, pick.second)}
            Rating.objects.filter(version_id__in=list(due)).update(last_played=now, due=Case(
                *(When(version_id=vid, then=Value(at)) for vid, at in due.items()), output_field=DateTimeField()))
        made.append(match.pk)
        recent.append(matchmaking_logic.RecentGame(pick.first.id, pick.second.id))
    return made
