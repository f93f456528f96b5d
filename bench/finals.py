"""Finals accuracy: a season's staged finals against a flat schedule spending the same games.

Run: .venv/bin/python bench/finals.py [--seeds N] [--entries N] [--search]
(ends with one `target ...` line)

A season of ENTRIES bots with hidden skills (bench/ranking.py's world: skills N(25, 25/3), each
side's performance its skill plus N(0, 25/6), close performances a draw) is played as the site
plays it: the open ladder with the platform's matchmaking (`ladder.logic.matchmaking.pick_match`) and
rating update, LADDER_GAMES games per bot; then half the bots upload their final version (hidden
skill moved by N(0, 25/9), placed from its predecessor, `ratings.placement_start`), as
competitors do before a deadline, and the ladder plays on for LATE_GAMES games per bot until the
close. The entries are then frozen and the finals run on the platform's own functions
(`armada_web.seasons.logic.finals`: stage sizes, each round's games from the current order, the
finals update with no dynamics term, the cut, the final order, the rating start), with the
settings' defaults (`armada_web.runtime.config.Config`: ARMADA_FINALS_*).

Figure: Kendall tau between the hidden order of the 10 truly best entries and their final
places (a true top-10 entry cut early counts against), averaged over the seeds, for the staged
finals and for a flat schedule: one stage, no cut, every entry playing the staged finals' games
per entry (on average), paired round by round by the same functions. The target is the ratio.

`--search` runs the comparison that chose the defaults (docs/seasons.md): the rating start
(the prior, or the ladder's mu with sigma raised by 1 to 6), the stages and the cut fraction,
each at the same budget of FINALS_GAMES games per entry on average.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "platform"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import ranking  # bench/ranking.py: the simulated world and the platform's matchmaking policy

from armada_web.ladder.logic import ratings
from armada_web.runtime.config import Config
from armada_web.seasons.logic import finals
from armada_web.seasons.logic.finals import Plan, Standing, Start

ENTRIES = 100
LADDER_GAMES = 30
LATE_SHARE = 0.5
LATE_GAMES = 4
TOP = 10
#: The finals' budget in the search: games per entry, on average over the entries.
FINALS_GAMES = 32
RAISES = (1.0, finals.LADDER_RAISE, 4.0, 6.0)


@dataclass
class Season:
    """One simulated season at its close: the hidden world and the ladder's ratings."""

    world: ranking.World
    ladder: list[ratings.Skill]


@dataclass(frozen=True)
class Starting:
    """A rating start to compare: the prior, or the ladder's with sigma raised by `raise_by`."""

    start: Start
    raise_by: float = finals.LADDER_RAISE

    def __str__(self) -> str:
        return "prior" if self.start is Start.PRIOR else f"ladder+{self.raise_by:g}"


def defaults() -> tuple[Plan, Starting]:
    """The platform's default plan and start (the settings' defaults)."""
    config = Config()
    plan = Plan(stages=config.finals_stages, games=config.finals_games, cuts=tuple(config.finals_cuts),
                keep_min=config.finals_keep_min)
    return plan, Starting(Start(config.finals_start))


def open_season(n: int, seed: int) -> Season:
    """The open phase: the ladder, then the final versions, then the ladder until the close."""
    world = ranking.World.make(n, seed)
    policy = ranking.Armada(n, world.owners)
    for _ in range(LADDER_GAMES * n // 2):
        a, b = policy.step()
        policy.record(a, b, world.result(a, b))
    rng = random.Random(seed * 104729 + 3)
    for bot in rng.sample(range(n), int(n * LATE_SHARE)):
        world.skills[bot] += rng.gauss(0, ranking.VERSION_CHANGE)
        policy.replace_bot(bot, world.owners[bot], fresh=False)
    for _ in range(LATE_GAMES * n // 2):
        a, b = policy.step()
        policy.record(a, b, world.result(a, b))
    return Season(world, [bot.rating for bot in policy.bots])


def play_finals(season: Season, plan: Plan, starting: Starting, games: int | None = None) -> list[int]:
    """The finals of `season` (the flat schedule when `games` is given: one stage of that many
    games, no cut); returns the entries' ids in final order."""
    world = copy.deepcopy(season.world)
    n = len(world.skills)
    seeding = sorted(range(n), key=lambda i: (-ratings.displayed(season.ladder[i]), i))
    seed_of = {entry: rank for rank, entry in enumerate(seeding)}
    skill = {i: finals.start_rating(starting.start, season.ladder[i], starting.raise_by) for i in range(n)}
    stage_of = dict.fromkeys(range(n), 1)
    playing = seeding
    per_stage = [games] if games is not None else [plan.games] * plan.stages

    def standings(ids: Sequence[int]) -> list[Standing]:
        return [Standing(i, stage_of[i], skill[i], seed_of[i]) for i in ids]

    for stage, count in enumerate(per_stage, start=1):
        for round_index in range(finals.rounds_in_stage(count)):
            order = [s.id for s in finals.ordered(standings(playing))]
            for first, second in finals.round_games(order, count, round_index):
                result = world.result(first, second)
                winner = None if result == 0 else 1 if result > 0 else 2
                skill[first], skill[second] = ratings.after_game(skill[first], skill[second], winner,
                                                                   tau=finals.FINALS_TAU)
        if stage < len(per_stage):
            keep = finals.kept(len(playing), plan.cut_after(stage), plan.keep_min)
            survivors, _out = finals.cut(standings(playing), keep)
            playing = [s.id for s in survivors]
            for i in playing:
                stage_of[i] = stage + 1
    return [s.id for s in finals.ordered(standings(range(n)))]


def top_tau(skills: Sequence[float], order: Sequence[int]) -> float:
    """Kendall tau between the hidden order of the TOP best entries and their final places."""
    place = {entry: p for p, entry in enumerate(order)}
    best = sorted(range(len(skills)), key=lambda i: -skills[i])[:TOP]
    return ranking.kendall_tau([skills[i] for i in best], [-float(place[i]) for i in best])


def flat_games(entries: int, plan: Plan) -> int:
    """Games per entry of the flat schedule spending the staged finals' games."""
    return round(2 * finals.total_matches(entries, plan) / entries)


def budget_plan(entries: int, stages: int, cut: float, keep_min: int, budget: int) -> Plan:
    """The plan of `stages` stages and cut `cut` whose games per stage spend about `budget` games per entry."""
    sizes = finals.stage_sizes(entries, Plan(stages, 1, (cut,), keep_min))
    return Plan(stages, max(1, round(budget * entries / sum(sizes))), (cut,), keep_min)


def measure(seasons: Sequence[Season], plan: Plan, starting: Starting) -> tuple[float, float]:
    """(staged tau, flat tau) averaged over the seasons."""
    entries = len(seasons[0].ladder)
    flat = flat_games(entries, plan)
    staged = [top_tau(s.world.skills, play_finals(s, plan, starting)) for s in seasons]
    flats = [top_tau(s.world.skills, play_finals(s, plan, starting, flat)) for s in seasons]
    return statistics.mean(staged), statistics.mean(flats)


def search(seasons: Sequence[Season], keep_min: int, out: Callable[[str], None]) -> None:
    """The comparison that chose the defaults, at one budget."""
    entries = len(seasons[0].ladder)
    out(f"search: {FINALS_GAMES} games per entry on average, {entries} entries, {len(seasons)} seeds, "
        f"cuts never below {keep_min}")
    out(f"  {'start':11} {'stages':>6} {'cut':>5} {'games/stage':>11} {'sizes':26} {'staged':>7} {'flat':>6} "
        f"{'ratio':>6}")
    starts = [Starting(Start.PRIOR), *(Starting(Start.LADDER, r) for r in RAISES)]
    for starting in starts:
        for stages in (2, 4, 6):
            for cut in (0.5, 0.7, 0.8):
                plan = budget_plan(entries, stages, cut, keep_min, FINALS_GAMES)
                staged, flat = measure(seasons, plan, starting)
                sizes = ",".join(map(str, finals.stage_sizes(entries, plan)))
                out(f"  {starting!s:11} {stages:6} {cut:5.2f} {plan.games:11} {sizes:26} {staged:7.3f} {flat:6.3f} "
                    f"{staged / flat:6.2f}")


def run(seeds: int, entries: int, do_search: bool, out: Callable[[str], None] = print) -> list[str]:
    plan, starting = defaults()
    seasons = [open_season(entries, seed) for seed in range(seeds)]
    if do_search:
        search(seasons, plan.keep_min, out)
    out(f"defaults: {plan.stages} stages of {plan.games} games per entry, cut {plan.cuts}, never below "
        f"{plan.keep_min}; start {starting}; {entries} entries: sizes {finals.stage_sizes(entries, plan)}, "
        f"{finals.total_matches(entries, plan)} matches, flat {flat_games(entries, plan)} games per entry")
    rows = {}
    for other in (Starting(Start.PRIOR), starting):
        rows[str(other)] = measure(seasons, plan, other)
        staged, flat = rows[str(other)]
        out(f"  start {other!s:11}: top-{TOP} Kendall tau staged {staged:.3f}, flat {flat:.3f} "
            f"(ratio {staged / flat:.2f}; {seeds} seeds)")
    staged, flat = rows[str(starting)]
    ratio = staged / flat
    return [f"target finals-top10-accuracy: {ratio:.2f} >= 1.2 {'ok' if ratio >= 1.2 else 'short'}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=120)
    parser.add_argument("--entries", type=int, default=ENTRIES)
    parser.add_argument("--search", action="store_true", help="run the comparison that chose the defaults")
    args = parser.parse_args()
    started = time.perf_counter()
    targets = run(args.seeds, args.entries, args.search)
    print(f"({time.perf_counter() - started:.0f} s)")
    print()
    for line in targets:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
