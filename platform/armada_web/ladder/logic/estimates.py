"""When a version's next ranked game starts and when its rating settles: the estimate the bot page
and `/status/` show, computed from the ranked queue and the measured rate of ranked matches.

bench/surge.py calls these same functions on a simulated deadline day and measures their error
against what then happens. The model follows the seed order of `matchmaking.pick_bounded`: a
candidate becomes the seed when its priority reaches the priority the matchmaker is picking at
now (the head of the seed order, `Queue.head_priority`); every candidate's priority grows at one
per `idle_unit` seconds, so that takes (head - its priority) x idle_unit, which counts down as
it waits. Meanwhile it may be picked as another seed's opponent (the first of the two comes
first): `per_second` x its share of the picks, `opponent_share`: of its neighbours in mu, those
that as seed would choose it now (`matchmaking.pick_opponent`), over the candidates. Each seed
takes its nearest in mu, so a bot far above or below the rest is seldom or never chosen; the even
share (`per_second / candidates`, still the model for a provisional version's games) capped its
wait at candidates / per_second however far its turn as seed was (a live site's top bot: "in about
17-20 s" for 72 s, played after 83 s). A match once made waits behind the ranked matches queued.
A version that has never played is a seed before every other (`priority` is infinite): its
wait is its place among those (each match takes at least one) at the measured rate. A rating
is settled once it is no longer provisional (`ratings.PROVISIONAL_GAMES` games): each game
left costs what the provisional versions were measured to need lately (`settling_time`: the pace
one of them kept, or its share of the games they got together, the slower), or without enough
of them the gap its place in the seed order leaves it after that game (`provisional_priority`),
never less than one ranked match start at the measured pace.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from armada_web.ladder.logic.matchmaking import (
    NEAR,
    PROVISIONAL_HEAD,
    PROVISIONAL_STEP,
    Candidate,
    MemoryPool,
    RecentGame,
    bonus,
    pick_opponent,
)
from armada_web.ladder.logic.ratings import PROVISIONAL_GAMES

#: The window over which provisional versions' counted games are measured, seconds.
SETTLING_WINDOW = 900.0
#: Provisional games counted in the window needed to measure their rate (else the model).
ENOUGH = 20
#: Gaps between two provisional games of one version in the window needed to measure one
#: version's own pace (else only the share of the games they got together): one version's whole
#: settling (PROVISIONAL_GAMES games), so that on a small site the next version already uses it.
PACE_ENOUGH = PROVISIONAL_GAMES - 1
#: The candidates nearest a version in mu read on each side for `opponent_share`: its neighbours'
#: neighbours (NEAR each) and a few more for those of its owner or team, which it never meets.
AROUND = 3 * NEAR


@dataclass(frozen=True)
class Spans:
    """What `settling_spans` reads from each version's provisional games in the window: the gaps
    between two of one version's, the seconds each was provisional from its first one, and the
    seconds in which at least one was; the same gaps and seconds of the fresh versions alone (a
    new bot's, not started from a predecessor's rating: the matchmaker serves them faster, as
    seeds and as opponents, for their uncertainty)."""

    intervals: int = 0
    exposure: float = 0.0
    busy: float = 0.0
    fresh_intervals: int = 0
    fresh_exposure: float = 0.0
    #: The fresh versions' seconds as if each had been alone: each instant shared among the versions
    #: provisional then (None: not measured). All versions' are `busy`.
    fresh_alone: float | None = None


@dataclass(frozen=True)
class Queue:
    """The ranked queue of one game as the estimates read it."""

    candidates: int  # ranked candidates (playing, not benched)
    per_second: float  # ranked matches started per second, measured (> 0)
    queued: int  # ranked matches made and not started yet
    head_priority: float  # the priority of the next seed (`matchmaking.priority`), finite
    idle_unit: float  # the matchmaker's idle unit, seconds
    match_seconds: float  # a ranked match's typical length, seconds
    settling: int = 0  # provisional candidates now
    settling_games: int = 0  # provisional versions' games counted in the last `settling_window` seconds
    settling_window: float = SETTLING_WINDOW  # what the count covers: less on a site up for less than that
    settling_fresh: int = 0  # of the provisional candidates now, the fresh ones (see Spans)
    spans: Spans = field(default_factory=Spans)  # the provisional versions' games in the window


def _sweep(spans: Sequence[tuple[float, float, bool]]) -> tuple[float, float]:
    """Of (first, end, fresh) `spans`: the seconds any was provisional, and the fresh versions' seconds as
    if each had been alone (each instant shared among the versions provisional then). Summed over all
    versions, the seconds as if alone are the first figure."""
    changes: dict[float, list[int]] = {}
    for first, end, fresh in spans:
        if end > first:
            for at, step in ((first, 1), (end, -1)):
                change = changes.setdefault(at, [0, 0])
                change[0] += step
                change[1] += step if fresh else 0
    busy = fresh_alone = 0.0
    count = fresh_count = 0
    last = 0.0
    for at in sorted(changes):
        if count > 0:
            busy += at - last
            fresh_alone += (at - last) * fresh_count / count
        count += changes[at][0]
        fresh_count += changes[at][1]
        last = at
    return busy, fresh_alone


def settling_spans(spans: Iterable[tuple[float, float, int, bool]]) -> Spans:
    """The provisional versions' spans in the window, each (its first provisional game in the window,
    when it stopped being provisional or now, its provisional games in the window, whether it started
    fresh), times in seconds: the gaps between two games of one version, the seconds summed over the
    versions, the seconds covered by at least one of them, and the fresh versions' gaps and seconds."""
    intervals, exposure = 0, 0.0
    fresh_intervals, fresh_exposure = 0, 0.0
    ordered = sorted(spans)
    busy, fresh_alone = _sweep([(first, end, fresh) for first, end, _games, fresh in ordered])
    for first, end, games, fresh in ordered:
        gaps, seconds = max(0, games - 1), max(0.0, end - first)
        intervals += gaps
        exposure += seconds
        if fresh:
            fresh_intervals += gaps
            fresh_exposure += seconds
    return Spans(intervals, exposure, busy, fresh_intervals, fresh_exposure, fresh_alone)


def settling_time(queue: Queue, games: int, *, fresh: bool = False) -> float | None:
    """Seconds for a provisional version (`fresh`: a new bot's, not started from a predecessor's
    rating) to play `games` more games (None without ENOUGH provisional games or PACE_ENOUGH gaps
    in the window: the model then).

    The P provisional versions now share the R games the provisional versions got in the window,
    P x (the seconds in which any was provisional) / R a game each. On a small ladder new versions
    come one at a time, each settling in minutes, so counting the whole window made that share
    count its idle minutes, and one version's games as all of them: with PACE_ENOUGH gaps
    measured, a game takes the slower of that share and the pace a version of its kind kept (its
    provisional seconds per gap). The share is weighed by those paces: a fresh version, which the
    matchmaker serves faster for its uncertainty, gets more of the games than a placed one
    (before, a new bot's estimate ran twice its time: bench/surge.py). Matchmaking serves them
    about in the order they started (`matchmaking.PROVISIONAL_HEAD`), so versions arriving later
    take little of a version's share (docs/arena.md)."""
    if queue.settling <= 0:
        return None
    spans = queue.spans

    def uncrowded(exposure: float, alone: float | None) -> float:
        """A kind's provisional seconds, less where more versions shared the games then than do now
        (a deadline-day trial: after a surge of ten, one version alone was told 4 to 8 times its time;
        never more: a large site serves many at the pace of one, bench/surge.py)."""
        return exposure if alone is None or alone <= 0 else min(exposure, alone * queue.settling)

    if spans.intervals >= PACE_ENOUGH and spans.exposure > 0:  # (so settling_games > 0)
        measured = spans.fresh_alone is not None  # (else Spans made by hand: the seconds as counted)
        pooled = spans.intervals / uncrowded(spans.exposure, spans.busy if measured else None)  # any kind

        def pace(kind_fresh: bool) -> float:
            """Gaps a second of a version of that kind (the pooled pace without PACE_ENOUGH of its own)."""
            gaps = spans.fresh_intervals if kind_fresh else spans.intervals - spans.fresh_intervals
            seconds = spans.fresh_exposure if kind_fresh else spans.exposure - spans.fresh_exposure
            alone = None if spans.fresh_alone is None else (
                spans.fresh_alone if kind_fresh else spans.busy - spans.fresh_alone)
            return gaps / uncrowded(seconds, alone) if gaps >= PACE_ENOUGH and seconds > 0 else pooled

        fresh_now = min(queue.settling_fresh, queue.settling)
        weights = fresh_now * pace(True) + (queue.settling - fresh_now) * pace(False)
        share = spans.busy / queue.settling_games * weights / pace(fresh)
        return games * max(1 / pace(fresh), share)
    if queue.settling_games >= ENOUGH:
        return queue.settling * games * queue.settling_window / queue.settling_games
    return None


def provisional_priority(games: int, sigma: float) -> float:
    """A provisional version's priority just after its `games`-th game, in idle units: its bonus,
    or its provisional head less a step per game after the first (`matchmaking.mark_played`)."""
    return max(bonus(games, sigma), PROVISIONAL_HEAD - (games - 1) * PROVISIONAL_STEP)


def opponent_share(bot: Candidate, around: Sequence[Candidate], recent: Sequence[RecentGame] = (), *,
                   candidates: int) -> float:
    """The share of the matchmaker's picks that name `bot` as the opponent, from its neighbours in mu:
    of the `candidates` of the whole ladder, each a seed about as often, how many would choose it now
    (`matchmaking.pick_opponent` over their NEAR nearest on each side, with the `recent` games'
    repeat penalty), over `candidates`. `around`: the candidates nearest `bot` in mu, of every owner,
    AROUND on each side where there are (so each of its neighbours' own neighbours are among them,
    with room for those of its owner or team); 0.0 when no neighbour would choose it (the top of a
    ladder far above the next, say: it then plays as a seed)."""
    pool = MemoryPool([c for c in around if c.id != bot.id] + [bot])
    chosen = 0
    for seed in pool.near(bot, NEAR):
        best = pick_opponent(seed, pool.near(seed, NEAR), recent)
        chosen += best is not None and best.id == bot.id
    return chosen / max(candidates, len(pool.by_id))


def _seed_wait(queue: Queue, priority: float, share: float | None = None) -> float:
    """Seconds until a candidate of `priority` (idle units, finite) is first picked, as seed or opponent;
    `share`: of the picks, those naming it as opponent (`opponent_share`; None: as many as any other's)."""
    as_seed = max(0.0, queue.head_priority - priority) * queue.idle_unit
    as_opponent = queue.per_second * (1 / max(1, queue.candidates) if share is None else share)
    if as_opponent <= 0:
        return as_seed
    return (1 - math.exp(-as_opponent * as_seed)) / as_opponent


def next_game(queue: Queue, *, priority: float, place: int = 0, flying: bool = False,
              share: float | None = None) -> float:
    """Seconds until the candidate's next ranked game starts: `priority` now (math.inf: never
    played, then `place` is how many never-played candidates are ahead of it), `flying` when a
    ranked match of it is queued or running already (its wait is that queue's), `share` the picks
    naming it as opponent (`opponent_share`; None: an even share)."""
    behind = queue.queued / queue.per_second
    if flying:
        return behind / 2
    if math.isinf(priority):
        return (place + 1) / queue.per_second + behind
    return _seed_wait(queue, priority, share) + behind


def settled(queue: Queue, *, priority: float, games: int, sigma: float, place: int = 0,
            flying: bool = False, fresh: bool = False) -> float:
    """Seconds until the candidate's rating settles (its PROVISIONAL_GAMES-th game counted); 0
    when it has already. `fresh`: a new bot's version, not started from a predecessor's rating."""
    if games >= PROVISIONAL_GAMES:
        return 0.0
    total = next_game(queue, priority=priority, place=place, flying=flying) + queue.match_seconds
    measured = settling_time(queue, PROVISIONAL_GAMES - games - 1, fresh=fresh)
    if measured is not None:
        return total + measured
    for played in range(games + 1, PROVISIONAL_GAMES):  # from one match made to the next, by the seed order
        # at least one ranked match started per game, however far ahead of the seed order it is
        total += max(_seed_wait(queue, provisional_priority(played, sigma)), 1 / queue.per_second)
    return total
