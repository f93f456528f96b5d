"""A season's finals in the database: the plan of each round, the matches sent, the cut.

`begin` starts the entries' finals ratings (seasons.logic.finals.start_rating); `advance` plans the
current round's games (seasons.logic.finals.round_games over the entries' current order), sends as
many of its matches as the finals' workers take (Season.finals_workers, set by beat from the
season's deadline: `workers_needed`), and once every game of a round is played moves to the
next round, and after a stage's last round cuts (seasons.logic.finals.cut) and begins the next stage.
Each match is a Match of kind `finals` played by the one runner; its result moves the two
entries' finals ratings exactly once (seasons.receivers, inside the match's recording
transaction). A match that ended void or failed (the platform's fault) is made again, at most
MAX_TRIES times for one game, then the game is skipped.
"""

from __future__ import annotations

import logging
import math
import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from armada_web.ladder.logic import results
from armada_web.ladder.matchmaking import ranked_match_seconds
from armada_web.matches.models import ENDED_BADLY, IN_FLIGHT, Match, MatchKind, MatchStatus, Participant
from armada_web.matches.services import cancel_queued, create_match, keep_seat_skills
from armada_web.seasons.entries import order, skill_of
from armada_web.seasons.logic import finals
from armada_web.seasons.models import Entry, FinalsGame, Season, SeasonState

log = logging.getLogger(__name__)
#: Matches made for one finals game before it is skipped (void or failed each time).
MAX_TRIES = 3
#: How much faster than the estimate the finals plan to finish (workers_needed).
SAFETY = 1.5


def plan_of(season: Season) -> finals.Plan:
    return finals.Plan(stages=season.stages or 1, games=season.games or 1, cuts=tuple(season.cuts or ()),
                       keep_min=season.keep_min or 2)


def begin(*, season: Season, plan: finals.Plan, start: finals.Start, now: datetime) -> None:
    """Start the finals (inside the caller's transaction, the season's row locked)."""
    entries = list(season.entries.all())
    for entry in entries:
        ladder = ratings_at_close(entry)
        skill = finals.start_rating(start, ladder)
        entry.mu, entry.sigma, entry.stage = skill.mu, skill.sigma, 1
        entry.games = entry.wins = entry.draws = entry.losses = 0
    Entry.objects.bulk_update(entries, ["mu", "sigma", "stage", "games", "wins", "draws", "losses"], batch_size=500)
    season.stages, season.games, season.cuts, season.keep_min = plan.stages, plan.games, list(plan.cuts), plan.keep_min
    season.start = start.value
    season.stage, season.round = 1, 0
    season.matches_total = finals.total_matches(len(entries), plan)
    season.state, season.finals_at = SeasonState.FINALS, now
    season.save(update_fields=["stages", "games", "cuts", "keep_min", "start", "stage", "round", "matches_total",
                               "state", "finals_at"])


def ratings_at_close(entry: Entry) -> finals.ratings.Skill | None:
    if entry.ladder_mu is None or entry.ladder_sigma is None:
        return None
    return finals.ratings.Skill(entry.ladder_mu, entry.ladder_sigma)


def count_game(*, match: Match, seats: list[Participant], winner: int | None) -> int | None:
    """A finals match was recorded (inside its recording transaction): both entries' finals
    ratings and records move once (`ladder.logic.results.apply_game`, no dynamics term) and each
    seat keeps its skill before and after, and its expected result. Returns the season's id, or
    None when the game counts for nothing (not a finals game, counted already, or the season left its finals)."""
    # The game's and the entries' rows only (`of`; Entry's default order joins the season): the
    # season's row is what `advance` locks before it creates matches (which count on the bots'
    # records); taking it here, after the recording counted on those records, would be the other
    # order: two hosts recording and advancing at once deadlocked (a game still counted once,
    # after a retry).
    game = FinalsGame.objects.select_for_update(of=("self",)).select_related("season").filter(match=match).first()
    if game is None or game.done or game.season.state != SeasonState.FINALS:
        return None  # the season ended before this match was played: it counts for nothing
    entries = Entry.objects.select_for_update(of=("self",)).order_by("pk").in_bulk([game.first_id, game.second_id])
    # Read again now the entries are ours: the season's finish locks them before it writes the
    # standings, so a season it finished while this waited for them is seen here.
    if not Season.objects.filter(pk=game.season_id, state=SeasonState.FINALS).exists():
        return None
    first, second = entries[game.first_id], entries[game.second_id]
    for entry in (first, second):
        skill = skill_of(entry)
        entry.mu, entry.sigma = skill.mu, skill.sigma
    # (Both skills were just set: the entries are sides of a game as `apply_game` takes them.)
    changes = results.apply_game(cast(results.Side, first), cast(results.Side, second), winner,
                                 tau=finals.FINALS_TAU)
    for entry in (first, second):
        entry.save(update_fields=["mu", "sigma", "games", "wins", "draws", "losses"])
    keep_seat_skills(seats=seats, changes={1: changes[0], 2: changes[1]})
    game.counted = True
    game.save(update_fields=["counted"])
    return game.season_id


def games_of(season: Season, stage: int | None = None, round_index: int | None = None) -> list[FinalsGame]:
    queryset = FinalsGame.objects.filter(season=season).select_related("match")
    if stage is not None:
        queryset = queryset.filter(stage=stage)
    if round_index is not None:
        queryset = queryset.filter(round=round_index)
    return list(queryset.order_by("id"))


def _plan_round(season: Season) -> list[FinalsGame]:
    """The current round's games, from the current order of the entries of the current stage; a
    game of two entries of one side is planned skipped (`finals.one_side`), never played."""
    playing = order(list(season.entries.filter(stage__gte=season.stage)))
    pairs = finals.round_games([e.pk for e in playing], plan_of(season).games, season.round)
    side = {e.pk: (e.owner_id, e.team_ref) for e in playing}
    games = [FinalsGame(season=season, stage=season.stage, round=season.round, first_id=a, second_id=b,
                        skipped=finals.ONE_SIDE if finals.one_side(side[a], side[b]) else "")
             for a, b in pairs]
    FinalsGame.objects.bulk_create(games, batch_size=500)
    return games_of(season, season.stage, season.round)


def _cut(season: Season) -> None:
    """After a stage but the last: the lower part is out, the rest play the next stage."""
    playing = list(season.entries.filter(stage__gte=season.stage))
    keep = finals.kept(len(playing), plan_of(season).cut_after(season.stage), plan_of(season).keep_min)
    survivors, _out = finals.cut([finals.Standing(e.pk, e.stage, skill_of(e), e.seed) for e in playing], keep)
    Entry.objects.filter(pk__in=[s.id for s in survivors]).update(stage=season.stage + 1)


def _release(season: Season, games: list[FinalsGame]) -> int:
    """Send matches for the round's games that need one, while fewer than the finals' workers are
    in flight; returns how many were sent."""
    in_flight = sum(1 for g in games if g.match is not None and g.match.status in IN_FLIGHT)
    room = max(0, season.finals_workers - in_flight)
    sent = 0
    for game in games:
        if room <= 0:
            break
        if game.done or (game.match is not None and game.match.status not in ENDED_BADLY):
            continue
        if game.tries >= MAX_TRIES:
            game.skipped = f"not played: its {game.tries} matches were void or failed"
            game.save(update_fields=["skipped"])
            continue
        first, second = _seats(game)
        if first.version is None or second.version is None or not (first.version.archive and second.version.archive):
            # its row kept, its code gone with its owner's account: every match of it was void (a trial)
            game.skipped = "not played: a bot's version was deleted"
            game.save(update_fields=["skipped"])
            continue
        match = create_match(game=season.game, first=first.version, second=second.version, kind=MatchKind.FINALS)
        game.match, game.tries = match, game.tries + 1
        game.save(update_fields=["match", "tries"])
        room -= 1
        sent += 1
    return sent


def _seats(game: FinalsGame) -> tuple[Entry, Entry]:
    seats = Entry.objects.select_related("version", "version__bot").in_bulk([game.first_id, game.second_id])
    return seats[game.first_id], seats[game.second_id]


def advance(*, season_id: int) -> bool:
    """Plan, send and move the finals on (see the module); True when every game is played."""
    with transaction.atomic():
        season = Season.objects.select_for_update().filter(pk=season_id, state=SeasonState.FINALS).first()
        if season is None:
            return False
        plan = plan_of(season)
        while True:
            games = games_of(season, season.stage, season.round) or _plan_round(season)
            if games:
                _release(season, games)
                if not all(g.done for g in games_of(season, season.stage, season.round)):
                    return False
            if season.round + 1 < finals.rounds_in_stage(plan.games):
                season.round += 1
            elif season.stage < plan.stages:
                _cut(season)
                season.stage, season.round = season.stage + 1, 0
            else:
                return True
            season.save(update_fields=["stage", "round"])


def all_done(season: Season) -> bool:
    """Every game of the last stage's last round is played (or skipped)."""
    plan = plan_of(season)
    last = games_of(season, plan.stages, finals.rounds_in_stage(plan.games) - 1)
    at_end = season.stage == plan.stages and season.round == finals.rounds_in_stage(plan.games) - 1
    return at_end and all(g.done for g in last)


def stop(*, season: Season) -> int:
    """The season ends: the finals' queued matches are cancelled (a running one finishes and counts
    for nothing) and the games never played are skipped; returns the matches cancelled."""
    waiting = list(FinalsGame.objects.filter(season=season, match__status=MatchStatus.QUEUED)
                   .values_list("match_id", flat=True))
    FinalsGame.objects.filter(season=season, counted=False, skipped="").update(skipped=SEASON_ENDED)
    return cancel_queued(match_ids=waiting, reason="cancelled: the season ended before it was played")


def withdraw(*, season: Season, entry_ids: list[int]) -> int:
    """Entries leave the finals (disqualified by staff): the queued matches of their games are
    cancelled (a running one finishes and counts for nothing once the entry is gone); returns the
    matches cancelled."""
    waiting = list(FinalsGame.objects.filter(season=season, match__status=MatchStatus.QUEUED)
                   .filter(Q(first_id__in=entry_ids) | Q(second_id__in=entry_ids)).values_list("match_id", flat=True))
    return cancel_queued(match_ids=waiting, reason="cancelled: an entry was disqualified")


def recount(*, season: Season) -> int:
    """The finals' `matches_total` again once entries left (staff disqualified them): the games
    kept (played, skipped or waiting; the games of the entries gone went with them) and those the
    rounds and stages still to plan will have with the entries left. Returns it."""
    plan = plan_of(season)
    games = FinalsGame.objects.filter(season=season)
    planned = games.filter(stage=season.stage, round=season.round).exists()
    playing = season.entries.filter(stage__gte=season.stage).count()
    season.matches_total = games.count() + finals.matches_after(playing, plan, season.stage,
                                                                season.round + 1 if planned else season.round)
    season.save(update_fields=["matches_total"])
    return season.matches_total


#: Why a finals game still waiting at the season's end was not played (`stop`).
SEASON_ENDED = "not played: the season ended"


def cut_short(season: Season) -> int:
    """The finals games a finish leaves unplayed, counted as it finishes (`Season.finals_cut`): those
    waiting then and those of the rounds never planned (0 for finals that ran to their last game)."""
    ended = FinalsGame.objects.filter(season=season, skipped=SEASON_ENDED).count()
    return ended + max(0, season.matches_total - matches_done(season))


def matches_done(season: Season) -> int:
    """Finals games played or skipped."""
    return FinalsGame.objects.filter(season=season).filter(Q(counted=True) | ~Q(skipped="")).count()


def match_seconds(season: Season) -> float:
    """A worker's seconds per finals match: of the season's latest 50, the longer of their median
    length (start to end) and the time they took together per worker (the worker's turnaround
    between matches and the wait for a round's last game included: an organiser's trial saw 1.3 s
    matches finish every 2.7 s); before 3 have finished, its game's ranked matches' length
    (`ladder.matchmaking.ranked_match_seconds`: the same bots, a moment before), else the setting."""
    rows = [(started, finished) for started, finished in Match.objects.filter(
        finals_game__season=season, status=MatchStatus.FINISHED, started__isnull=False, finished__isnull=False)
        .order_by("-finished").values_list("started", "finished")[:50] if started and finished]
    if len(rows) >= 3:
        median = statistics.median((finished - started).total_seconds() for started, finished in rows)
        span = (max(f for _s, f in rows) - min(s for s, _f in rows)).total_seconds()
        # The workers they took: the most that ran at once (not `finals_workers` now, which this very
        # figure raises through `workers_needed`: read back, it would grow at every tick).
        paced = span * most_at_once(rows) / len(rows)
        return max(1.0, median, min(paced, TURNAROUND_CAP * median))
    return max(1.0, ranked_match_seconds(season.game))


#: A worker's time per finals match is at most this many times a match's median length: a pause
#: within the latest 50 (the site stopped, staff's hand) is not the finals' pace.
TURNAROUND_CAP = 4.0


def most_at_once(spans: list[tuple[datetime, datetime]]) -> int:
    """The most of these (start, end) spans that overlap at one moment (one ending as another
    starts: not at once); at least 1."""
    edges = sorted([(end, -1) for _start, end in spans] + [(start, 1) for start, _end in spans])
    running = most = 0
    for _at, step in edges:
        running += step
        most = max(most, running)
    return max(1, most)


def workers_needed(season: Season, workers: int, now: datetime | None = None) -> int:
    """The match workers the finals take: at least ARMADA_FINALS_SHARE percent of `workers`, and
    as many as finishing the matches left by `ends` needs (with a margin of SAFETY); 0 without workers."""
    if workers <= 0:
        return 0
    now = now or timezone.now()
    left = max(0, season.matches_total - matches_done(season))
    seconds = (season.ends - now).total_seconds()
    needed = workers if seconds <= 0 else math.ceil(left * match_seconds(season) * SAFETY / seconds)
    return max(1, min(workers, max(share_of(workers), needed)))


def share_of(workers: int) -> int:
    """The workers a season's finals take at least: ARMADA_FINALS_SHARE percent of `workers`, rounded up."""
    return math.ceil(workers * settings.ARMADA.finals_share / 100)


def estimate(season: Season, now: datetime | None = None) -> datetime | None:
    """When the finals should be done at the current pace (None when nothing is left)."""
    now = now or timezone.now()
    left = max(0, season.matches_total - matches_done(season))
    if left == 0 or season.state != SeasonState.FINALS:
        return None
    seconds = left * match_seconds(season) / max(1, season.finals_workers)
    return now + timedelta(seconds=seconds)


@dataclass(frozen=True)
class Forecast:
    """When `matches` finals matches would be done from `now` on every match worker there is."""

    matches: int
    workers: int
    #: A match's seconds (match_seconds: the finals' measured ones, at first the ranked matches').
    match_seconds: float
    done: datetime
    #: The finals would claim every worker until done (workers_needed's rule, with SAFETY's margin).
    takes_all: bool
    #: They would be done after the season's `ends`, when the standings as they are become final.
    past_end: bool
    #: Other seasons in their finals, sharing the workers.
    others: int = 0


def forecast(season: Season, matches: int, workers: int, now: datetime) -> Forecast | None:
    """The forecast for `matches` matches of `season`'s finals on `workers` workers (None without
    either), sharing them with the other seasons in their finals: each sends its matches as the
    workers take them, so they take turns, and each of them costs this season's finals the work it
    has left, at most as much as this season's own (an organiser's trial started a second season's
    finals while another's ran on the one worker; forecast alone, they ran past its end with 188 of
    300 matches played)."""
    if workers <= 0 or matches <= 0:
        return None
    each = match_seconds(season)  # (one query: the finals' or the ranked matches' lengths)
    own = matches * each
    others, shared = 0, 0.0
    for other in Season.objects.filter(state=SeasonState.FINALS).exclude(pk=season.pk):
        left = max(0, other.matches_total - matches_done(other)) * match_seconds(other)
        others += left > 0
        shared += min(left, own)
    done = now + timedelta(seconds=(own + shared) / workers)
    # the claim (workers_needed) follows this season's own work alone, and is never below the share:
    # a share of every worker (one match worker, `make up`'s) takes them all from the start
    takes_all = (share_of(workers) >= workers
                 or now + timedelta(seconds=own / workers * SAFETY) >= season.ends)
    return Forecast(matches=matches, workers=workers, match_seconds=each, done=done, takes_all=takes_all,
                    past_end=done > season.ends, others=others)


def claimed_workers(workers: int) -> int:
    """The workers every season in its finals takes now (matches.capacity's claim)."""
    taking = Season.objects.filter(state=SeasonState.FINALS).values_list("finals_workers", flat=True)
    return sum(min(workers, n) for n in taking)
