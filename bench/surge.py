"""Deadline day: new versions settle first, established bots keep playing, the estimates hold.

Run: .venv/bin/python bench/surge.py [--seeds N]   (ends with one `target ...` line per target)
     .venv/bin/python bench/surge.py --small      (the same day on a small site, docs/arena.md)

A season's last hours on fixed capacity: ESTABLISHED bots with settled ratings play ranked
games (hidden skills and outcomes as in bench/ranking.py); after an hour, NEW versions arrive
within ARRIVALS seconds (most replace their bot's version and start from its rating,
`ratings.placement_start`; a fifth are new bots), while challenges arrive and an event plays its
matches. WORKERS workers play matches of MATCH_SECONDS (+-40 %), taking the challenges, events and
ranked queues round robin as `jobs.queue_order` makes Celery do; every TICK seconds the
matchmaker tops the ranked matches in flight up to `target_depth(WORKERS)` and the event's
scheduler does the same for its matches, as the platform does.

Two matchmakers, each over the same days (same skills, arrivals, outcomes' seeds):
- armada: the platform's own `ladder.logic.matchmaking.pick_bounded` over a `MemoryPool`
  (the seed order by `due`, `mark_played`), the ladder's rating update;
- fifo: first come, first served: the seed is the candidate that has waited longest (a new
  version waits from its arrival), its opponent the candidate of another owner nearest in mu.
Figures (each the median over the seeds of each seed's ratio armada / fifo):
- new versions' 90th percentile time from arrival (validation) to a settled rating (its
  PROVISIONAL_GAMES-th game counted);
- established bots' 99th percentile gap between the starts of two games (gaps ending in the
  WINDOW after the first arrival, and each bot's wait still open at its end);
- the estimates of `ladder.logic.estimates` (what the bot page and /status/ show) made at each
  new version's arrival (its first game, its settled rating) and for idle established bots
  every ESTIMATE_EVERY seconds (their next game): the median of |estimate - actual| / actual
  (actual at least one MATCH_SECONDS) over armada's runs, the largest of three medians: every
  next game, the established bots' next game alone (also printed for those at the top or bottom
  tenth in mu, whom the matchmaker seldom names as opponents), the settled rating.
"""

from __future__ import annotations

import argparse
import bisect
import heapq
import math
import random
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "platform"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ranking import SKILL_MU, SKILL_SIGMA, VERSION_CHANGE, play

from armada_web.ladder.logic import estimates, ratings
from armada_web.ladder.logic import matchmaking as mm
from armada_web.ladder.logic.matchmaking import Candidate, MemoryPool, Pick, RecentGame

ESTABLISHED = 1000
NEW = 300
WORKERS = 32  # an established bot plays about every 20 minutes before the surge
MATCH_SECONDS = 60.0
TICK = 5.0
WARMUP = 3600.0
ARRIVALS = 3600.0
WINDOW = 4 * 3600.0
LIMIT = 16 * 3600.0
CHALLENGES_PER_HOUR = 60
EVENT_MATCHES = 600
EVENT_START = 1800.0
ESTIMATE_EVERY = 300.0
RECENT = 200
START = datetime(2025, 6, 1)
QUEUES = ("challenges", "events", "matches")


def at(t: float) -> datetime:
    return START + timedelta(seconds=t)


@dataclass
class Day:
    """One deadline day's hidden truth: skills, ratings at its start, arrivals, challenges."""

    skills: dict[int, float]
    owners: dict[int, int]
    start: list[Candidate]
    arrivals: list[tuple[float, int, int | None, float]]  # (time, new id, replaced id or None, skill)
    challenges: list[float]
    seed: int

    @classmethod
    def make(cls, seed: int, established: int, new: int) -> Day:
        rng = random.Random(seed)
        skills: dict[int, float] = {}
        owners: dict[int, int] = {}
        start: list[Candidate] = []
        unit = established * MATCH_SECONDS / (2 * WORKERS)
        for i in range(established):
            skills[i], owners[i] = rng.gauss(SKILL_MU, SKILL_SIGMA), i
            rating = ratings.Skill(skills[i] + rng.gauss(0, 1.0), 1.2)
            last = at(-rng.uniform(0, 2 * unit) - WARMUP)
            start.append(mm.mark_played(Candidate(i, i, rating, rng.randrange(40, 200), None), last, unit))
        arrivals: list[tuple[float, int, int | None, float]] = []
        replaced = rng.sample(range(established), new * 4 // 5)
        for k in range(new):
            vid = established + k
            when = WARMUP + rng.uniform(0, ARRIVALS)
            if k < len(replaced):
                old = replaced[k]
                owners[vid], skills[vid] = owners[old], skills[old] + rng.gauss(0, VERSION_CHANGE)
                arrivals.append((when, vid, old, skills[vid]))
            else:
                owners[vid], skills[vid] = vid, rng.gauss(SKILL_MU, SKILL_SIGMA)
                arrivals.append((when, vid, None, skills[vid]))
        arrivals.sort()
        challenges: list[float] = []
        t = 0.0
        while CHALLENGES_PER_HOUR and t < LIMIT:
            t += rng.expovariate(CHALLENGES_PER_HOUR / 3600)
            challenges.append(t)
        return cls(skills, owners, start, arrivals, challenges, seed)


@dataclass
class Run:
    """One matchmaker's day: the event loop, and what it measured."""

    day: Day
    fifo: bool
    starts: dict[int, list[float]] = field(default_factory=dict)
    settled: dict[int, float] = field(default_factory=dict)
    estimates_next: list[tuple[float, float]] = field(default_factory=list)
    estimates_established: list[tuple[float, float]] = field(default_factory=list)  # theirs among estimates_next
    estimates_edge: list[tuple[float, float]] = field(default_factory=list)  # theirs at the top or bottom tenth in mu
    estimates_settled: list[tuple[float, float]] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=lambda: dict.fromkeys(QUEUES, 0))
    challenge_waits: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        day = self.day
        self.rng = random.Random(day.seed * 7919 + 3)
        start = [replace(c, due=c.last_played) for c in day.start] if self.fifo else day.start
        self.pool = MemoryPool(start)
        self.arrived: dict[int, float] = {}
        self.replaced: set[int] = set()
        self.queues: dict[str, deque[tuple[float, Pick | None]]] = {q: deque() for q in QUEUES}
        self.order = list(QUEUES)
        self.running = 0
        self.ranked_flying = 0
        self.event_flying = 0
        self.event_left = EVENT_MATCHES
        self.recent: deque[RecentGame] = deque(maxlen=RECENT)
        self.started_ranked: deque[float] = deque()
        self.settling_games: deque[float] = deque()  # when each provisional game was counted
        self.provisional: dict[int, list[float]] = {}  # each version's provisional games, when counted
        self.placed: set[int] = {c.id for c in day.start}  # started from a rating (`Rating.placed`): not fresh
        self.pending_next: dict[int, tuple[float, float]] = {}  # bot -> (asked at, estimate)
        self.pending_settle: dict[int, float] = {}
        self.edge: set[tuple[int, float]] = set()  # (bot, asked at) of the asks at the top or bottom tenth in mu
        self.events: list[tuple[float, int, str, object]] = []
        self.seq = 0

    # --- the event loop
    def push(self, t: float, kind: str, data: object = None) -> None:
        self.seq += 1
        heapq.heappush(self.events, (t, self.seq, kind, data))

    def go(self) -> Run:
        day = self.day
        for t, vid, old, _ in day.arrivals:
            self.push(t, "arrive", (vid, old))
        for t in day.challenges:
            self.push(t, "challenge")
        self.push(EVENT_START, "event")
        t = 0.0
        while t <= LIMIT:
            self.push(t, "tick")
            t += TICK
        for t in range(int(WARMUP), int(LIMIT), int(ESTIMATE_EVERY)):
            self.push(float(t), "ask")
        for _ in range(WORKERS):
            self.push(0.0, "free")
        self.free = 0
        while self.events:
            now, _, kind, data = heapq.heappop(self.events)
            if len(self.settled) == len(day.arrivals) and now > WARMUP + WINDOW:
                break
            getattr(self, "on_" + kind)(now, data)
        return self

    def idle_unit(self) -> float:
        return max(1.0, len(self.pool.by_id) * MATCH_SECONDS / (2 * WORKERS))

    def on_tick(self, now: float, _: object) -> None:
        for _ in range(mm.target_depth(WORKERS) - self.ranked_flying):
            pick = self.pick(now)
            if pick is None:
                break
            self.ranked_flying += 1
            self.queues["matches"].append((now, pick))
        if self.event_left and now >= EVENT_START:
            while self.event_left and self.event_flying < mm.target_depth(WORKERS):
                self.event_left -= 1
                self.event_flying += 1
                self.queues["events"].append((now, None))
        self.dispatch(now)

    def on_event(self, now: float, _: object) -> None:
        self.on_tick(now, None)

    def on_challenge(self, now: float, _: object) -> None:
        self.queues["challenges"].append((now, None))
        self.dispatch(now)

    def on_free(self, now: float, _: object) -> None:
        self.free += 1
        self.dispatch(now)

    def dispatch(self, now: float) -> None:
        """Free workers take the non-empty queues round robin (jobs.queue_order without finals)."""
        while self.free:
            queue = next((q for q in self.order if self.queues[q]), None)
            if queue is None:
                return
            self.order.remove(queue)
            self.order.append(queue)
            made, pick = self.queues[queue].popleft()
            self.free -= 1
            length = MATCH_SECONDS * self.rng.uniform(0.6, 1.4)
            self.kinds[queue] += 1 if WARMUP <= now < WARMUP + WINDOW else 0
            if queue == "challenges":
                self.challenge_waits.append(now - made)
            if pick is None:
                self.push(now + length, "done", queue)
                continue
            self.started_ranked.append(now)
            for seat in (pick.first.id, pick.second.id):
                self.starts.setdefault(seat, []).append(now)
                asked = self.pending_next.pop(seat, None)
                if asked is not None:
                    self.estimates_next.append((asked[1], now - asked[0]))
                    if seat not in self.arrived:
                        self.estimates_established.append((asked[1], now - asked[0]))
                    if (seat, asked[0]) in self.edge:
                        self.estimates_edge.append((asked[1], now - asked[0]))
            self.push(now + length, "result", pick)

    def on_done(self, now: float, queue: object) -> None:
        if queue == "events":
            self.event_flying -= 1
        self.on_free(now, None)

    def on_result(self, now: float, pick: object) -> None:
        assert isinstance(pick, Pick)
        self.ranked_flying -= 1
        a, b = pick.first.id, pick.second.id
        result = play(self.day.skills[a], self.day.skills[b], self.rng)
        ca, cb = self.pool.by_id.get(a), self.pool.by_id.get(b)
        ra = ca.rating if ca else pick.first.rating
        rb = cb.rating if cb else pick.second.rating
        if result > 0:
            ra, rb = ratings.update(ra, rb, ratings.Outcome.WIN)
        elif result < 0:
            rb, ra = ratings.update(rb, ra, ratings.Outcome.WIN)
        else:
            ra, rb = ratings.update(ra, rb, ratings.Outcome.DRAW)
        for c, r in ((ca, ra), (cb, rb)):
            if c is None:
                continue  # replaced by a newer version meanwhile
            played = replace(c, rating=r, games=c.games + 1)
            self.pool.update(played)
            if played.games <= ratings.PROVISIONAL_GAMES:
                self.settling_games.append(now)
                self.provisional.setdefault(c.id, []).append(now)
            if c.id in self.arrived and played.games == ratings.PROVISIONAL_GAMES:
                self.settled[c.id] = now - self.arrived[c.id]
                asked = self.pending_settle.pop(c.id, None)
                if asked is not None:
                    self.estimates_settled.append((asked, now - self.arrived[c.id]))
        self.on_free(now, None)

    # --- matchmaking
    def pick(self, now: float) -> Pick | None:
        unit = self.idle_unit()
        if self.fifo:
            found = None
            for seed in self.pool.longest_waiting(1):
                near = self.pool.near(seed, mm.NEAR)
                if near:
                    other = min(near, key=lambda c: (abs(c.rating.mu - seed.rating.mu), c.id))
                    found = Pick(seed, other, seed.id)
        else:
            found = mm.pick_bounded(self.pool, self.recent, at(now), unit)
        if found is None:
            return None
        for c in (found.first, found.second):
            current = self.pool.by_id[c.id]
            if self.fifo:
                self.pool.update(replace(current, last_played=at(now), due=at(now)))
            else:
                self.pool.update(mm.mark_played(current, at(now), unit))
        self.recent.append(RecentGame(found.first.id, found.second.id))
        return found

    def on_arrive(self, now: float, data: object) -> None:
        assert isinstance(data, tuple)
        vid: int = data[0]
        old: int | None = data[1]
        before = None
        if old is not None:
            before = self.pool.by_id[old].rating
            self.pool.remove(old)
            self.replaced.add(old)
            self.placed.add(vid)
        rating = ratings.placement_start(before)
        waited = (at(now), at(now)) if self.fifo else (None, None)  # fifo: queued from its arrival
        self.pool.add(Candidate(vid, self.day.owners[vid], rating, 0, waited[0], waited[1]))
        self.arrived[vid] = now
        if not self.fifo:
            queue = self.queue(now)
            if queue is not None:
                place = sum(1 for c in self.pool.longest_waiting(mm.SEEDS * 4)
                            if c.last_played is None and c.id < vid)
                self.pending_next[vid] = (now, estimates.next_game(queue, priority=math.inf, place=place))
                self.pending_settle[vid] = estimates.settled(queue, priority=math.inf, games=0,
                                                             sigma=rating.sigma, place=place, fresh=old is None)

    def queue(self, now: float) -> estimates.Queue | None:
        """The ranked queue as the platform's estimate reads it."""
        while self.started_ranked and self.started_ranked[0] < now - 3600:
            self.started_ranked.popleft()
        while self.settling_games and self.settling_games[0] < now - estimates.SETTLING_WINDOW:
            self.settling_games.popleft()
        if not self.started_ranked:
            return None
        settling = sum(1 for c in self.pool.by_id.values() if c.games < ratings.PROVISIONAL_GAMES)
        unit = self.idle_unit()
        heads = [mm.priority(c, at(now), unit) for c in self.pool.longest_waiting(mm.SEEDS)]
        finite = [p for p in heads if not math.isinf(p)]
        fresh = sum(1 for c in self.pool.by_id.values()
                    if c.games < ratings.PROVISIONAL_GAMES and c.id not in self.placed)
        return estimates.Queue(candidates=len(self.pool.by_id), per_second=len(self.started_ranked) / 3600,
                               queued=len(self.queues["matches"]), head_priority=max(finite, default=0.0),
                               idle_unit=unit, match_seconds=MATCH_SECONDS,
                               settling=settling, settling_games=len(self.settling_games), settling_fresh=fresh,
                               spans=estimates.settling_spans(self.spans(now)))

    def spans(self, now: float) -> list[tuple[float, float, int, bool]]:
        """Each version's provisional games in the window, as the site reads them (ladder.queries):
        (the first, its last if it settled, else now, how many, whether it started fresh); one
        replaced before it settled is left out."""
        since = now - estimates.SETTLING_WINDOW
        out = []
        for vid, times in self.provisional.items():
            recent = [t for t in times if t >= since]
            settled = len(times) >= ratings.PROVISIONAL_GAMES
            if recent and (settled or vid in self.pool.by_id):
                out.append((recent[0], recent[-1] if settled else now, len(recent), vid not in self.placed))
        return out

    def on_ask(self, now: float, _: object) -> None:
        if self.fifo:
            return
        queue = self.queue(now)
        if queue is None:
            return
        flying = {s for _, p in self.queues["matches"] if p for s in (p.first.id, p.second.id)}
        ids = [i for i in self.rng.sample(range(len(self.day.start)), min(20, len(self.day.start)))
               if i not in self.replaced]
        for bot in ids:
            if bot in flying or bot in self.pending_next or bot not in self.pool.by_id:
                continue
            c = self.pool.by_id[bot]
            priority = mm.priority(c, at(now), queue.idle_unit)
            share = estimates.opponent_share(c, self.around(c), list(self.recent), candidates=queue.candidates)
            place = bisect.bisect_left(self.pool._mu, (c.rating.mu, c.id)) / len(self.pool._mu)
            if not 0.1 <= place < 0.9:
                self.edge.add((bot, now))
            self.pending_next[bot] = (now, estimates.next_game(queue, priority=priority, share=share))

    def around(self, c: Candidate) -> list[Candidate]:
        """The candidates nearest `c` in mu, of every owner, as the site reads them for `opponent_share`
        (ladder.queries: AROUND on each side)."""
        ranked = self.pool._mu  # (mu, id), sorted
        middle = bisect.bisect_left(ranked, (c.rating.mu, c.id))
        window = ranked[max(0, middle - estimates.AROUND):middle + estimates.AROUND + 1]
        return [self.pool.by_id[cid] for _, cid in window]


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else math.nan


def gaps(run: Run) -> list[float]:
    """Established bots' gaps between game starts ending in the window, and the waits still open at its end."""
    lo, hi = WARMUP, WARMUP + WINDOW
    out = []
    for bot in range(len(run.day.start)):
        if bot in run.replaced:
            continue
        times = [t for t in run.starts.get(bot, []) if t <= hi]
        last = max((t for t in times if t < lo), default=None)
        for t in (t for t in times if t >= lo):
            if last is not None:
                out.append(t - last)
            last = t
        out.append(hi - (last if last is not None else lo - 2 * 3600))
    return out


def errors(pairs: list[tuple[float, float]]) -> list[float]:
    return [abs(est - act) / max(act, MATCH_SECONDS) for est, act in pairs]


def run(seeds: int, established: int = ESTABLISHED, new: int = NEW,
        out: Callable[[str], None] = print) -> list[str]:
    """Both matchmakers over `seeds` days; return the target lines."""
    new_ratio, gap_ratio, err_next, err_settled, err_established, err_edge = [], [], [], [], [], []
    shares: dict[str, list[str]] = {"armada": [], "fifo": []}
    for seed in range(seeds):
        day = Day.make(seed, established, new)
        runs = {name: Run(day, fifo=name == "fifo").go() for name in ("armada", "fifo")}
        p90 = {k: percentile([r.settled.get(v, LIMIT) for _, v, _, _ in day.arrivals], 0.9) for k, r in runs.items()}
        p99 = {k: percentile(gaps(r), 0.99) for k, r in runs.items()}
        new_ratio.append(p90["armada"] / p90["fifo"])
        gap_ratio.append(p99["armada"] / p99["fifo"])
        a = runs["armada"]
        err_next += errors(a.estimates_next)
        err_settled += errors(a.estimates_settled)
        err_established += errors(a.estimates_established)
        err_edge += errors(a.estimates_edge)
        seed_errors = [statistics.median(errors(a.estimates_next)), statistics.median(errors(a.estimates_settled))]
        for k, r in runs.items():
            total = sum(r.kinds.values())
            shares[k].append(" ".join(f"{q} {100 * r.kinds[q] / total:.1f}%" for q in QUEUES)
                             + f", challenge wait p90 {percentile(r.challenge_waits, 0.9):.0f} s")
        out(f"seed {seed}: new p90 to settled {p90['armada'] / 60:.0f} min vs fifo {p90['fifo'] / 60:.0f} min; "
            f"established gap p99 {p99['armada'] / 60:.0f} vs {p99['fifo'] / 60:.0f} min; "
            f"unsettled at the end {len(day.arrivals) - len(a.settled)} vs "
            f"{len(day.arrivals) - len(runs['fifo'].settled)}; estimate errors (median): next game "
            f"{seed_errors[0]:.2f}, settled {seed_errors[1]:.2f}")
        for k in runs:
            out(f"  {k:6} matches started in the window: {shares[k][-1]}")
    en, es = statistics.median(err_next), statistics.median(err_settled)
    ee, eg = statistics.median(err_established), statistics.median(err_edge)
    out(f"{established} established bots, {new} new versions within {ARRIVALS / 3600:.0f} h, {WORKERS} workers x "
        f"{MATCH_SECONDS:.0f} s matches, {seeds} seeds")
    out(f"  new p90 ratio per seed {', '.join(f'{r:.2f}' for r in new_ratio)}; "
        f"gap p99 ratio per seed {', '.join(f'{r:.2f}' for r in gap_ratio)}")
    out(f"  estimate errors: next game median {en:.2f} ({len(err_next)} estimates), "
        f"settled median {es:.2f} ({len(err_settled)}); established bots' next game median {ee:.2f} "
        f"({len(err_established)}), those at the top or bottom tenth in mu {eg:.2f} ({len(err_edge)})")
    nr, gr, e = statistics.median(new_ratio), statistics.median(gap_ratio), max(en, es, ee)
    return [
        f"target surge-new-p90-vs-fifo: {nr:.2f} <= 0.5 {'ok' if nr <= 0.5 else 'short'}",
        f"target surge-established-gap-p99-vs-fifo: {gr:.2f} <= 1.5 {'ok' if gr <= 1.5 else 'short'}",
        f"target eta-median-error: {e:.3f} <= 0.3 {'ok' if e <= 0.3 else 'short'}",
    ]


def small_site() -> None:
    """The day on a small site instead (docs/arena.md, "A small site"): 2 workers, 20 s matches, no
    event or challenges, estimates every minute (with --established 40 --new 10 --seeds 12)."""
    global WORKERS, MATCH_SECONDS, CHALLENGES_PER_HOUR, EVENT_MATCHES, ESTIMATE_EVERY
    WORKERS, MATCH_SECONDS, CHALLENGES_PER_HOUR, EVENT_MATCHES, ESTIMATE_EVERY = 2, 20.0, 0, 0, 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--established", type=int, default=None)
    parser.add_argument("--new", type=int, default=None)
    parser.add_argument("--small", action="store_true", help="a small site's day (its targets are not the issue's)")
    args = parser.parse_args()
    if args.small:
        small_site()
    args.seeds = args.seeds or (12 if args.small else 3)
    args.established = args.established or (40 if args.small else ESTABLISHED)
    args.new = args.new or (10 if args.small else NEW)
    started = time.perf_counter()
    targets = run(args.seeds, args.established, args.new)
    print(f"({time.perf_counter() - started:.0f} s)")
    print()
    for line in targets:  # a small site's figures are not the targets: printed as figures
        print(f"small site, {line.removeprefix('target ')}" if args.small else line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
