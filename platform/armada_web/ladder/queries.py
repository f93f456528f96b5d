"""Ladder reads for the API and the pages: a rated game's ladder and places on it, a bot's rating
chart (downsampled in the database), the league and a race's battles (computed on demand from
stored orders), and when a bot's next ranked game should start."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection
from django.db.models import Count, F, Max, Min, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from armada.games.mothership.battle import fight, prepare
from armada.games.mothership.league import battle_points
from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.queries import play_state
from armada_web.games import rated_games, spec
from armada_web.ladder import league
from armada_web.ladder.logic import estimates, ratings
from armada_web.ladder.logic import matchmaking as matchmaking_logic
from armada_web.ladder.logic.ratings import PROVISIONAL_GAMES
from armada_web.ladder.matchmaking import RatingPool, ranked_match_seconds, recent_games, unit
from armada_web.ladder.models import ON_LADDER, RANKED, LeagueEntry, Rating, RatingChange
from armada_web.matches.capacity import free, known_workers
from armada_web.matches.models import IN_FLIGHT, Match, MatchKind, MatchStatus
from armada_web.matches.queries import Record
from armada_web.web.errors import NotFound
from armada_web.web.paging import Paged, keyed_page

#: Most points the rating chart draws, whatever the number of games.
CHART_POINTS = 300


def ladder(game: str) -> QuerySet[Rating]:
    """The playing versions of rated game `game` that have played, best displayed score (mu - 3 sigma)
    first: one range of the index `rating_ladder` (the flags are kept by ladder.playing)."""
    return (Rating.objects.filter(ON_LADDER, game=game)
            .select_related("version", "version__bot", "version__bot__owner", "version__bot__team")
            .order_by("-score", "version_id"))


def search_ladder(queryset: QuerySet[Any], text: str) -> QuerySet[Any]:
    """Rows whose bot name, race name or owner's username holds `text` (any ladder's queryset)."""
    text = text.strip()
    if not text:
        return queryset
    return queryset.filter(Q(version__bot__name__icontains=text) | Q(version__race_name__icontains=text)
                           | Q(version__bot__owner__username__icontains=text))


def ranks_of(game: str, version_ids: list[int]) -> dict[int, int]:
    """Each version's place on the whole ladder of `game` (one query, a window over the index)."""
    if not version_ids:
        return {}
    ranked = (Rating.objects.filter(ON_LADDER, game=game)
              .annotate(place=Window(RowNumber(), order_by=[F("score").desc(), F("version_id")]))
              .values_list("version_id", "place"))
    sql, params = ranked.query.sql_with_params()
    marks = ", ".join(["%s"] * len(version_ids))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM ({sql}) ranked WHERE ranked.version_id IN ({marks})",  # noqa: S608
                       [*params, *version_ids])
        return {int(version_id): int(place) for version_id, place in cursor.fetchall()}


class ChartPoint(NamedTuple):
    """One point of a bot's rating chart: after the match `match_id` of its version `version`."""

    at: datetime
    score: float
    version: int
    match_id: int


def chart_points(bot_id: int, limit: int = CHART_POINTS) -> tuple[list[ChartPoint], int]:
    """(at most about `limit` points of the bot's rating history, oldest first, and its rated games
    in all): evenly spread over its games, each version's first and last game always among them;
    picked through the index `rating_change_nth_game`, never read whole."""
    played = list(reversed(Rating.objects.filter(version__bot_id=bot_id, games__gt=0).order_by("-version__number")
                           .values_list("version_id", "games")[:limit]))
    total = sum(games for _, games in played)
    if not played:
        return [], 0
    step = max(1.0, total / limit)
    wanted = Q()
    offset = 0
    for version_id, games in played:
        picks = {1, games} | {n - offset for n in _spread(offset, offset + games, step)}
        wanted |= Q(version_id=version_id, games__in=sorted(p for p in picks if 1 <= p <= games))
        offset += games
    changes = (RatingChange.objects.filter(wanted).order_by("at", "id")
               .values_list("at", "mu", "sigma", "version__number", "match_id"))
    return [ChartPoint(at, ratings.displayed(ratings.Skill(mu, sigma)), number, match_id)
            for at, mu, sigma, number, match_id in changes], total


def _spread(start: int, stop: int, step: float) -> list[int]:
    """The 1-based game numbers in (start, stop] that fall on multiples of `step`."""
    first = int(start // step) + 1
    return [round(k * step) for k in range(first, int(stop // step) + 1) if start < round(k * step) <= stop]


@dataclass(frozen=True)
class Standing:
    """Where a bot's playing version stands in its game's table (the ladder, or the league)."""

    rank: int
    #: The displayed score: mu - 3 sigma on a ladder, points in the league.
    score: float
    #: The table's page (of `per_page` rows) that shows its row.
    page: int
    rating: Rating | None = None
    entry: LeagueEntry | None = None

    @property
    def benched(self) -> bool:
        return bool(self.rating is not None and self.rating.benched)


def standing(bot: Bot, per_page: int) -> Standing | None:
    """The bot's row in its game's table, None when it has none (not playing, no rated game yet)."""
    if bot.active_version_id is None or bot.disabled or bot.retired:
        return None
    if spec(bot.game).rated:
        rows = ladder(bot.game)
        rating = rows.filter(version_id=bot.active_version_id).first()
        if rating is None:
            return None
        # the rows above it in the ladder's order (-score, version_id): one range of its index, counted
        above = Q(score__gt=rating.score) | Q(score=rating.score, version_id__lt=rating.version_id)
        rank = rows.filter(above).count() + 1
        return Standing(rank, rating.score, (rank - 1) // per_page + 1, rating=rating)
    entry = league.table().filter(version_id=bot.active_version_id).first()
    if entry is None:
        return None
    return Standing(entry.position, entry.points, (entry.position - 1) // per_page + 1, entry=entry)


@dataclass(frozen=True)
class Battle:
    """One battle of a league race against another: points (MD-10) and damage both ways."""

    opponent: LeagueEntry
    points: int
    opponent_points: int
    dealt: int
    taken: int


#: Battles a page shows: each is played on the request (a cost audit: a league of 3,000 races made
#: every race's page and its bot's page cost 0.6 s of CPU and 1.3 MB, for anyone).
BATTLES_PER_PAGE = 100


def battles(entry: LeagueEntry, *, number: int = 1, per_page: int | None = None) -> Paged:
    """Page `number` of the race's battles with every other race in the league, in table order, played
    now in-engine (BATTLES_PER_PAGE a page); Invalid for a page past the last."""
    per_page = per_page or BATTLES_PER_PAGE
    keys = LeagueEntry.objects.exclude(pk=entry.pk).order_by("position").values_list("pk", flat=True)
    paged = keyed_page(keys, lambda pks: league.table().filter(pk__in=pks), number, per_page,
                       key=lambda other: other.pk, name="battles page")
    mine = prepare(entry.version.orders or {})
    rows = []
    for other in paged.rows:
        theirs = prepare(other.version.orders or {})
        _rounds, taken, dealt = fight(mine, theirs)
        points, opponent_points = battle_points(taken, dealt, mine[0], theirs[0])
        rows.append(Battle(other, points, opponent_points, dealt, taken))
    paged.rows = rows
    return paged


def league_entry_of(bot_id: int) -> LeagueEntry | None:
    return league.table().filter(version__bot_id=bot_id).first()


def battle_of(a: int, b: int) -> tuple[LeagueEntry, LeagueEntry]:
    """The league entries of bots `a` and `b`, two different races of the league; NotFound otherwise."""
    entries = {e.version.bot_id: e for e in league.table().filter(version__bot_id__in=[a, b])}
    if a == b or a not in entries or b not in entries:
        raise NotFound("both bots must be races in the league (and differ)")
    return entries[a], entries[b]


@dataclass(frozen=True)
class NextGame:
    """When a bot's next ranked game should start: `seconds` from now (0: one is queued or running
    now), or None with `why` when it plays no ranked games now; `settled`: seconds until its
    rating settles (None once it has, or without an estimate); `settled_new_bot`: /status/'s other
    kind, a new bot's version (a fresh rating, which the matchmaker serves faster)."""

    seconds: float | None
    why: str = ""
    settled: float | None = None
    settled_new_bot: float | None = None

    @property
    def under_a_second(self) -> bool:
        """Due in less than half a second but not now: "under a second", never "about 0 s" (a trial)."""
        return self.seconds is not None and 0 < self.seconds < 0.5


def covered(first: datetime | None, now: datetime, window: float) -> float:
    """Seconds a measuring window of `window` seconds covers when its first event was at `first`: on a
    site up for minutes only those (at least a matchmaking tick); the whole window without events."""
    if first is None:
        return window
    return min(max((now - first).total_seconds(), float(settings.ARMADA.matchmaking_s), 1.0), window)


def ranked_pace(game: str, now: datetime) -> float:
    """Ranked matches of `game` started a second over the last hour, or over the part of it since
    the first of them (a site up for minutes, a pace that changed): 0.0 with none."""
    recent = Match.objects.filter(kind=MatchKind.RANKED, game=game, started__gte=now - timedelta(hours=1))
    found = recent.aggregate(count=Count("id"), first=Min("started"))
    return float(found["count"]) / covered(found["first"], now, 3600.0) if found["count"] else 0.0


def recent_changes(game: str, now: datetime) -> QuerySet[RatingChange]:
    """The rating changes of `game` over the estimates' settling window (the index on `at` serves it)."""
    return RatingChange.objects.filter(match__game=game, at__gte=now - timedelta(seconds=estimates.SETTLING_WINDOW))


def settling_spans(game: str, now: datetime, playing: set[int]) -> estimates.Spans:
    """`estimates.settling_spans` of `game`'s provisional games in the window, per version: its
    first, when it settled (its PROVISIONAL_GAMES-th) or now while it plays provisional (its id in
    `playing`), how many, and whether it started fresh (not `Rating.placed`). One that stopped
    playing before it settled is left out: its span would end at its last game, not when it was
    replaced, and make the pace look faster than it was."""
    rows = (recent_changes(game, now).filter(games__lte=PROVISIONAL_GAMES).order_by()
            .values("version_id", placed=F("version__rating__placed"))
            .annotate(first=Min("at"), last=Max("at"), count=Count("id"), top=Max("games")))
    spans = []
    for row in rows:
        settled = row["top"] >= PROVISIONAL_GAMES
        if settled or row["version_id"] in playing:
            end = row["last"] if settled else now
            spans.append(((row["first"] - now).total_seconds(), (end - now).total_seconds(), int(row["count"]),
                          not row["placed"]))
    return estimates.settling_spans(spans)


def ranked_queue(game: str, now: datetime) -> estimates.Queue | None:
    """The ranked queue of `game` as `ladder.logic.estimates` reads it (a few counts and one seed
    read, whatever the ladder's size), or None when no worker is free for ranked games."""
    workers = known_workers()
    available = free(workers)
    if workers <= 0 or available <= 0:  # (a season's finals take them all: the last hour's pace is gone)
        return None
    match_seconds = ranked_match_seconds(game)
    per_second = ranked_pace(game, now) or available / match_seconds
    if per_second <= 0:
        return None
    pool = RatingPool(game)
    size = pool.size()
    idle_unit = unit(size, workers, match_seconds)  # the matchmaker's own unit, which its order follows
    heads = [matchmaking_logic.priority(c, now, idle_unit) for c in pool.longest_waiting(matchmaking_logic.SEEDS)]
    window = recent_changes(game, now)
    first = window.aggregate(first=Min("at"))["first"]
    provisional = dict(pool.rows.filter(games__lt=PROVISIONAL_GAMES).values_list("version_id", "placed"))
    spans = settling_spans(game, now, set(provisional))
    return estimates.Queue(
        candidates=size, per_second=per_second, idle_unit=idle_unit, match_seconds=match_seconds,
        queued=Match.objects.filter(kind=MatchKind.RANKED, game=game, status=MatchStatus.QUEUED).count(),
        head_priority=max((p for p in heads if not math.isinf(p)), default=0.0),
        settling=len(provisional),
        settling_games=window.filter(games__lte=PROVISIONAL_GAMES).count(),
        settling_window=covered(first, now, estimates.SETTLING_WINDOW),
        settling_fresh=sum(not placed for placed in provisional.values()), spans=spans)


def next_ranked_game(bot_id: int, now: datetime | None = None) -> NextGame:
    """An estimate from matchmaking's own order (`ladder.logic.estimates`, the function bench/surge.py
    measures): when the bot's playing version is next a seed or an opponent, at the measured rate
    of ranked matches, and when its rating settles."""
    now = now or timezone.now()
    version = BotVersion.objects.playing().filter(bot_id=bot_id).select_related("bot").first()
    if version is None:  # why, as the bot page's state (bots.queries.play_state) has it
        bot = Bot.objects.select_related("team").filter(pk=bot_id).first()
        kind = play_state(bot).kind if bot is not None else ""
        why = {"disabled": "staff disabled it", "retired": "it is retired",
               "orphaned": "its owner deleted their account",
               "archived": f"its team {bot.team.name if bot else ''} is archived",
               }.get(kind, "it has no valid version playing")
        if kind == "validating":
            return NextGame(None, "its version is being validated: it plays once it is valid")
        if kind == "stopped":  # staff disabled its owner's account: no reason given (a review)
            return NextGame(None, "it plays no ranked games now")
        return NextGame(None, f"it plays no ranked games now: {why}")
    if not spec(version.bot.game).rated:
        return NextGame(None, f"{spec(version.bot.game).label} has no ranked games")
    rating = Rating.objects.filter(version=version).first()
    if rating is not None and rating.benched:
        return NextGame(None, "it is benched: upload a new version to play again")
    if known_workers() <= 0:
        return NextGame(None, "no worker is playing ranked games now")
    queue = ranked_queue(version.bot.game, now)
    if queue is None:
        return NextGame(None, "no worker is free for ranked games now (a season's finals take them)")
    flying = Match.objects.filter(kind=MatchKind.RANKED, status__in=IN_FLIGHT,
                                  participants__version=version).exists()
    games, sigma = (rating.games, rating.sigma) if rating else (0, ratings.SIGMA)
    share: float | None = None
    if rating is None or rating.last_played is None:
        place = Rating.objects.filter(RANKED, game=version.bot.game, last_played__isnull=True,
                                      version_id__lt=version.pk).count()
        priority = math.inf
    else:
        place = 0
        owner = version.bot.owner_id or 0
        candidate = matchmaking_logic.Candidate(version.pk, owner, ratings.Skill(rating.mu, rating.sigma),
                                                rating.games, rating.last_played, rating.due, version.bot.team_id)
        priority = matchmaking_logic.priority(candidate, now, queue.idle_unit)
        if not flying:  # how often the matchmaker names it as opponent: its neighbours in mu (a few reads)
            game = version.bot.game
            share = estimates.opponent_share(candidate, RatingPool(game).around(candidate, estimates.AROUND),
                                             recent_games(game), candidates=queue.candidates)
    seconds = 0.0 if flying else estimates.next_game(queue, priority=priority, place=place, share=share)
    settled = estimates.settled(queue, priority=priority, games=games, sigma=sigma, place=place, flying=flying,
                                fresh=rating is None or not rating.placed)
    return NextGame(round(seconds, 1), settled=round(settled, 1) if games < PROVISIONAL_GAMES else None)



def new_version_estimates(now: datetime | None = None) -> dict[str, NextGame]:
    """For /status/: per rated game, when a version that starts playing now should play its first ranked
    game and settle (behind the versions that have not played yet)."""
    now = now or timezone.now()
    out: dict[str, NextGame] = {}
    for game in rated_games():
        queue = ranked_queue(game.slug, now)
        if queue is None:
            out[game.slug] = NextGame(None, "no worker is free for ranked games now")
            continue
        place = Rating.objects.filter(RANKED, game=game.slug, last_played__isnull=True).count()
        first = estimates.next_game(queue, priority=math.inf, place=place)
        # a settled bot's new version
        placed = ratings.placement_start(ratings.Skill(ratings.MU, ratings.SETTLED_SIGMA))
        settled = estimates.settled(queue, priority=math.inf, games=0, sigma=placed.sigma, place=place)
        fresh = estimates.settled(queue, priority=math.inf, games=0, sigma=ratings.SIGMA, place=place, fresh=True)
        out[game.slug] = NextGame(round(first, 1), settled=round(settled, 1), settled_new_bot=round(fresh, 1))
    return out


def version_records(version_ids: list[int]) -> dict[int, Record]:
    """Version id -> its rated games (wins, draws, losses): the ratings' kept counts, whatever the
    number of games."""
    return {v: Record(None, "", won, drawn, lost) for v, won, drawn, lost in
            Rating.objects.filter(version_id__in=version_ids).values_list("version_id", "wins", "draws", "losses")}


@dataclass(frozen=True)
class Place:
    """A bot's line in its game's table, for a list of bots (a team's): rank and displayed score."""

    rank: int
    #: mu - 3 sigma on a ladder, points in the league.
    score: float
    rated: bool
    games: int


def places_of(bots: list[Bot]) -> dict[int, Place]:
    """Each listed bot's place in its game's table (bots that are on none are left out): a query
    per rated game and one for the league, whatever the number of bots."""
    versions = {b.active_version_id: b for b in bots if b.active_version_id and not b.retired and not b.disabled}
    out: dict[int, Place] = {}
    for game in rated_games():
        mine = [v for v, b in versions.items() if b.game == game.slug]
        if not mine:
            continue
        ranks = ranks_of(game.slug, mine)
        for rating in Rating.objects.filter(ON_LADDER, version_id__in=list(ranks)).only("version_id", "score",
                                                                                          "games"):
            out[versions[rating.version_id].pk] = Place(ranks[rating.version_id], rating.score, True, rating.games)
    others = [v for v, b in versions.items() if not spec(b.game).rated]
    for entry in LeagueEntry.objects.filter(version_id__in=others) if others else []:
        out[versions[entry.version_id].pk] = Place(entry.position, entry.points, False, entry.played)
    return out
