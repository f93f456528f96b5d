"""`armada tournament`: every pair of bots plays n games, in parallel worker processes."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from armada.botspec import BotSource
from armada.cli import botinfo, output
from armada.cli.common import (
    MAX_SEED,
    CliError,
    add_game_arg,
    add_sandbox_arg,
    check_config,
    connection,
    docker_preflight,
    get_engine,
    load_config,
    millis_arg,
    positive_int_arg,
    random_seed,
    resolve_all,
    seed_arg,
    time_limits_for,
)
from armada.cli.logfiles import prepare_log_dir, safe_name, safe_names, write_logs
from armada.ratings import Outcome, Skill, displayed, initial_rating, provisional, update

#: The most games one tournament plays (pairs x games per pair): past it, -n is surely a typo.
MAX_GAMES = 100_000

EPILOG = """\
Every pair of bots plays GAMES games. Game k of a pair (k = 0, 1, ...) uses seed SEED + k // 2
and swaps the seats on odd k, so each map is played from both sides. Bots are given as for
`armada play` (main.py, folder, .zip, builtin:NAME).

examples:
  armada tournament mybot/ builtin:greedy builtin:random
  armada tournament a/ b/ c/ -n 20 --jobs 8 --seed 1
  armada tournament race/ builtin:balanced builtin:greedy --game mothership --json

Scores are the site's: each bot starts at the ladder's rating (mu 25, sigma 8.33), the games
are rated one by one in the schedule's order with the ladder's model (armada.ratings; a
forfeit is a loss, a draw a draw), and the score is mu - 3 sigma; P marks a provisional
rating (fewer than 10 games), as on the ladder. Faults count, per bot, the games it
ended with a status other than ok (timeout, crashed, protocol, invalid, memory, output).
Exit status: 0 when every game was played, 1 when some could not be (listed), 2 for bad input.
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "tournament", help="round robin between several bots, with ratings",
        description="Play a round robin between two or more bots and print results, ratings and faults.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bots", metavar="BOT", nargs="+", help="two or more bots")
    p.add_argument("-n", "--games", type=positive_int_arg, default=2, metavar="GAMES",
                   help="games per pair (default: 2)")
    p.add_argument("--jobs", "-j", type=positive_int_arg, default=default_jobs(), metavar="N",
                   help=f"matches played at once (default here: {default_jobs()})")
    add_game_arg(p)
    p.add_argument("--seed", "-s", type=seed_arg, help="base seed (default: a random one, printed)")
    add_sandbox_arg(p)
    p.add_argument("--turn-ms", type=millis_arg, metavar="N",
                   help="time per request in milliseconds (default: the game's)")
    p.add_argument("--config", "-c", metavar="JSON-or-FILE", help="game configuration (JSON object or file)")
    p.add_argument("--json", action="store_true", help="print only the results as JSON on stdout")
    p.add_argument("--replay-dir", metavar="DIR",
                   help="write each game's replay to DIR/A-vs-B-gameK-seedS.json.gz (DIR is created)")
    p.add_argument("--log-dir", metavar="DIR",
                   help="write each game's bot logs to DIR/A-vs-B-gameK-seedS/seatN-NAME.log (DIR is created)")
    p.set_defaults(run=run)


def default_jobs() -> int:
    """Half the CPUs (each match runs two bot processes), at least 1."""
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass(frozen=True)
class Job:
    """One game of the schedule; plain picklable data for a worker process."""

    index: int
    game: str
    seed: int
    seats: tuple[str, str]  # bot names in seat 1, seat 2
    scripts: tuple[tuple[str, str], tuple[str, str]]  # (code_dir, entry) per seat
    sandbox: str
    config: dict[str, Any] | None
    turn_ms: int | None
    pair: tuple[str, str] = ("", "")  # the pairing (bot A, bot B) as in the tables
    number: int = 0  # game k of the pairing
    replay_path: str | None = None
    log_dir: str | None = None
    files: tuple[str, str] = ("", "")  # the pairing's bots as file names (`safe_names`: apart)

    @property
    def name(self) -> str:
        """`A-vs-B-gameK-seedS`: the pairing, the game number and the seed (file names)."""
        a, b = (file or safe_name(bot) for file, bot in zip(self.files, self.pair, strict=True))
        return f"{a}-vs-{b}-game{self.number}-seed{self.seed}"


def schedule(names: list[str], games_per_pair: int, seed: int) -> list[tuple[str, str, int]]:
    """(seat 1 bot, seat 2 bot, seed) of every game: pairs in order, sides swapped on odd games."""
    return [(s1, s2, game_seed) for s1, s2, game_seed, _pair, _k in pairings(names, games_per_pair, seed)]


def pairings(names: list[str], games_per_pair: int,
             seed: int) -> list[tuple[str, str, int, tuple[str, str], int]]:
    """`schedule` with each game's pairing (A, B) and its number k within the pairing."""
    out = []
    for a, b in itertools.combinations(names, 2):
        for k in range(games_per_pair):
            s1, s2 = (a, b) if k % 2 == 0 else (b, a)
            out.append((s1, s2, seed + k // 2, (a, b), k))
    return out


#: The bots of the game this worker plays now (its stop closes them).
_bots: list[Any] = []
#: Set once this worker is told to stop: the game its bots' close cut short writes no files.
_stopping = threading.Event()
#: Taken to add a game's bots and to take the list to close: a bot is either closed or never added.
_bots_lock = threading.Lock()


def _worker_start(stop: Any) -> None:
    """Each worker's start: Ctrl-C reaches the whole process group, and only the main process acts
    on it (a handler that does nothing, not SIG_IGN, which the bots it starts would inherit); when
    the main process sets `stop` (a multiprocessing Event), a thread of the worker closes its game's
    bots and ends it (`_close_and_exit`). Not a signal: Python runs a handler in the main thread
    only, which a game's wait can hold for its whole init time (a trial's stops took 30 s)."""
    signal.signal(signal.SIGINT, lambda _signum, _frame: None)
    # TERM (the pool's own, when a worker ended: it ends the others) closes the bots too, not at once
    signal.signal(signal.SIGTERM, lambda _signum, _frame: _begin_stop())
    threading.Thread(target=_watch, args=(stop,), daemon=True, name="armada-stop").start()


def _watch(stop: Any) -> None:
    stop.wait()
    _begin_stop()


#: Held by the first stop: one close of the worker's bots, whoever asks.
_stop_once = threading.Lock()


def _begin_stop() -> None:
    """Stop this worker once: no game starts any more, its bots are closed, it ends (a thread of its
    own: from a signal handler too, the main thread may hold `_bots_lock`)."""
    if _stop_once.acquire(blocking=False):
        _stopping.set()
        threading.Thread(target=_close_and_exit, name="armada-close").start()


def _close_and_exit() -> None:
    """Close this worker's bots (their processes, containers and folders) and end the worker."""
    with _bots_lock:
        bots = list(_bots)
    for bot in bots:
        with contextlib.suppress(Exception):
            bot.close(grace=0)
    os._exit(130)


#: How long the main process gives its workers to close their bots once told to stop.
STOP_WAIT_S = 15.0


def _stop_workers(stop: Any) -> None:
    """Stop the pool's workers now, each closing its game's bots first (a trial: after Ctrl-C the main
    process waited for games still being played, and a second Ctrl-C left the workers and their
    bots running); one that has not ended in STOP_WAIT_S is killed."""
    stop.set()
    processes = multiprocessing.active_children()  # the pool's workers: this process starts no other
    end = time.monotonic() + STOP_WAIT_S
    for process in processes:
        process.join(max(0.0, end - time.monotonic()))
        if process.is_alive():
            with contextlib.suppress(OSError):
                process.kill()


def play_job(job: Job) -> dict[str, Any]:
    """Play one game in a worker; returns the match summary, or {"error": ...} if it could not run."""
    from armada.referee.match import play_match

    try:
        bots = {}
        for seat, (name, (code_dir, entry)) in enumerate(zip(job.seats, job.scripts, strict=True), start=1):
            source = BotSource(code_dir, entry, name)
            bots[seat] = connection(source, job.sandbox, name)
            with _bots_lock:
                if _stopping.is_set():  # (told to stop as this game began: it starts no bot)
                    return {"index": job.index, "error": "stopped"}
                _bots.append(bots[seat])
        outcome = play_match(job.game, bots, seed=job.seed, config=job.config,
                             limits=time_limits_for(job.game, job.turn_ms))
        files: dict[str, Any] = {}
        if _stopping.is_set():  # (cut short by the stop, not played: no replay or log of it, a review)
            return {"index": job.index, "error": "stopped"}
        if job.replay_path:
            from armada.drawing import with_drawings
            from armada.replay import write_replay

            write_replay(with_drawings(outcome.replay, {p.seat: p.debug for p in outcome.players}), job.replay_path)
            files["replay"] = job.replay_path
        if job.log_dir:
            prepare_log_dir(job.log_dir)
            files["logs"] = write_logs(outcome.players, job.log_dir)
        return {"index": job.index, "summary": outcome.summary(), **files}
    except Exception as exc:  # a broken environment must not stop the other games
        return {"index": job.index, "error": f"{exc.__class__.__name__}: {exc}"}
    finally:
        _bots.clear()


@dataclass
class Standings:
    """What the table shows, built from the finished games."""

    names: list[str]
    pairs: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (a, b) -> [a wins, draws, b wins]
    record: dict[str, list[int]] = field(default_factory=dict)  # name -> [wins, draws, losses]
    faults: dict[str, Counter[str]] = field(default_factory=dict)
    #: (schedule index, seat 1's name, seat 2's name, winning seat or None, the two statuses)
    games: list[tuple[int, str, str, int | None, tuple[str, str]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    exceptions: Counter[str] = field(default_factory=Counter)  # name -> exceptions its library caught
    played: list[dict[str, Any]] = field(default_factory=list)  # one row per game (the per-game table)

    def __post_init__(self) -> None:
        for a, b in itertools.combinations(self.names, 2):
            self.pairs[(a, b)] = [0, 0, 0]
        for name in self.names:
            self.record[name] = [0, 0, 0]
            self.faults[name] = Counter()

    def add(self, seats: tuple[str, str], summary: dict[str, Any], index: int | None = None) -> None:
        """Count one finished game (seats: names in seat 1 and seat 2; index: its place in the schedule)."""
        winner = summary.get("winner")
        s1, s2 = seats
        score1 = 0.5 if winner is None else (1.0 if winner == 1 else 0.0)
        by_seat = {p.get("seat"): str(p.get("status", "ok")) for p in summary.get("players", [])}
        self.games.append((len(self.games) if index is None else index, s1, s2, winner,
                           (by_seat.get(1, "ok"), by_seat.get(2, "ok"))))
        key = (s1, s2) if (s1, s2) in self.pairs else (s2, s1)
        first_score = score1 if key[0] == s1 else 1.0 - score1
        self.pairs[key][0 if first_score == 1.0 else 1 if first_score == 0.5 else 2] += 1
        for name, score in ((s1, score1), (s2, 1.0 - score1)):
            self.record[name][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
        for player in summary.get("players", []):
            if player.get("status") != "ok":
                self.faults[seats[player["seat"] - 1]][player["status"]] += 1
            self.exceptions[seats[player["seat"] - 1]] += (player.get("exceptions") or {}).get("count", 0)

    def add_game(self, job: Job, result: dict[str, Any]) -> None:
        """Count a finished game and keep its row for the per-game table."""
        summary = result["summary"]
        self.add(job.seats, summary, job.index)
        winner = summary.get("winner")
        players = summary.get("players", [])
        self.played.append({
            "index": job.index, "a": job.pair[0], "b": job.pair[1], "game": job.number, "seed": job.seed,
            "seat1": job.seats[0], "seat2": job.seats[1],
            "winner": job.seats[winner - 1] if winner in (1, 2) else None,
            "outcome": summary.get("outcome"), "turns": summary.get("turns"),
            "statuses": [p.get("status") for p in players],
            "exceptions": [(p.get("exceptions") or {}).get("count", 0) for p in players],
            "warnings": [(p.get("warnings") or {}).get("count", 0) for p in players],
            "replay": result.get("replay"), "logs": result.get("logs", []),
        })

    def ratings(self) -> dict[str, Skill]:
        """Each bot's rating after every game, rated in schedule order as the ladder rates matches."""
        return rate_games(self.names, sorted(self.games))

    def to_dict(self) -> dict[str, Any]:
        ratings = self.ratings()
        order = sorted(self.names, key=lambda n: -displayed(ratings[n]))
        return {
            "pairs": [{"a": a, "b": b, "a_wins": r[0], "draws": r[1], "b_wins": r[2]}
                      for (a, b), r in self.pairs.items()],
            "bots": [{"name": n, "score": displayed(ratings[n]), "mu": ratings[n].mu, "sigma": ratings[n].sigma,
                      "provisional": provisional(sum(self.record[n])), "wins": self.record[n][0],
                      "draws": self.record[n][1], "losses": self.record[n][2],
                      "faults": dict(sorted(self.faults[n].items())), "exceptions": self.exceptions[n]}
                     for n in order],
            "games": sorted(self.played, key=lambda g: g["index"]),
            "errors": self.errors,
        }


def rate_games(names: list[str], games: list[tuple[int, str, str, int | None, tuple[str, str]]]) -> dict[str, Skill]:
    """Ratings after `games` (index, seat 1, seat 2, winner, statuses) in their order, from the ladder's start.

    The ladder's rule for one result: no winner is a draw; a winner against a faulty loser is
    a forfeit (rated as a loss); otherwise a win.
    """
    ratings = {name: initial_rating() for name in names}
    for _index, first, second, winner, statuses in games:
        if winner is None:
            ratings[first], ratings[second] = update(ratings[first], ratings[second], Outcome.DRAW)
            continue
        won, lost = (first, second) if winner == 1 else (second, first)
        kind = Outcome.FORFEIT if statuses[1 if winner == 1 else 0] != "ok" else Outcome.WIN
        ratings[won], ratings[lost] = update(ratings[won], ratings[lost], kind)
    return ratings


#: The line under a Mothership Down table: its site ranks races by league points, not a rating.
LEAGUE_NOTE = ("Mothership Down's site ranks races in a league by points (docs/games/mothership.md), not by "
               "this rating: `armada league BOT...` shows that table")


def render(standings: Standings, game: str = "galaxy") -> str:
    """The readable tables: pairs, then bots by score (mu - 3 sigma); for a game the site does not
    rate (Mothership Down's league), a line saying where its table comes from."""
    data = standings.to_dict()
    pair_rows = [[p["a"], p["b"], p["a_wins"], p["draws"], p["b_wins"]] for p in data["pairs"]]
    bot_rows = []
    for rank, b in enumerate(data["bots"], start=1):
        faults = ", ".join(f"{k} {v}" for k, v in b["faults"].items()) or "-"
        bot_rows.append([rank, b["name"], f"{b['score']:.2f}" + (" P" if b["provisional"] else "  "),
                         f"{b['mu']:.2f}", f"{b['sigma']:.2f}", b["wins"], b["draws"], b["losses"], faults,
                         b["exceptions"] or "-"])
    parts = [
        output.table(["bot A", "bot B", "A wins", "draws", "B wins"], pair_rows, right=[2, 3, 4]),
        "",
        output.table(["#", "bot", "score", "mu", "sigma", "W", "D", "L", "faults", "exceptions"], bot_rows,
                     right=[0, 2, 3, 4, 5, 6, 7, 9]),
        ("score = mu - 3 sigma, rated as on the ladder" if game != "mothership" else
         "score = mu - 3 sigma, the rating model of the Galaxy ladder")
        + ("; P: provisional, fewer than 10 games" if any(b["provisional"] for b in data["bots"]) else ""),
    ]
    if game == "mothership":
        parts.append(LEAGUE_NOTE)
    if standings.errors:
        parts += ["", f"{len(standings.errors)} games could not be played:"]
        parts += [f"  {e}" for e in standings.errors[:10]]
    return "\n".join(parts)


def games_table(standings: Standings, game: str) -> str:
    """One row per game: pairing, game number, seed, seats, winner, statuses, exceptions caught."""
    rows = []
    for g in sorted(standings.played, key=lambda g: g["index"]):
        statuses = "/".join(g["statuses"])
        caught = "/".join(str(c) for c in g["exceptions"])
        rows.append([g["index"], g["seed"], g["seat1"], g["seat2"], g["winner"] or "draw", g["outcome"],
                     g["turns"], statuses, caught])
    return output.table(["game", "seed", "seat 1", "seat 2", "winner", "by", get_engine(game).turns_label, "statuses",
                         "exceptions"],
                        rows, right=[0, 1, 6])


def run(args: argparse.Namespace) -> int:
    if len(args.bots) < 2:
        raise CliError("a tournament needs at least two bots")
    game, note = botinfo.match_game(args.bots, args.game)
    if note:
        print(f"armada: note: {note}", file=sys.stderr)
    seed: int = args.seed if args.seed is not None else random_seed()
    pairs = len(args.bots) * (len(args.bots) - 1) // 2
    if pairs * args.games > MAX_GAMES:
        raise CliError(f"{pairs} pairs of {args.games} games: a tournament plays at most {MAX_GAMES} games")
    last_seed = seed + (args.games - 1) // 2  # game k of a pair has seed S + k // 2
    if last_seed > MAX_SEED:
        raise CliError(f"the seeds of this tournament go up to {last_seed}, past the largest seed {MAX_SEED} "
                       f"(`armada play --seed` could not replay them): give a smaller --seed")
    config = load_config(args.config)
    check_config(game, config)
    time_limits_for(game, args.turn_ms)  # fails early if the referee is missing
    if args.sandbox == "docker":
        docker_preflight()
    for folder, option in ((args.replay_dir, "--replay-dir"), (args.log_dir, "--log-dir")):
        if folder:
            prepare_log_dir(folder, option)
    with ExitStack() as stack:
        sources, names = resolve_all(stack, args.bots, game)
        scripts = {n: (s.code_dir, s.entry) for n, s in zip(names, sources, strict=True)}
        files = safe_names(names)
        jobs = []
        for i, (a, b, game_seed, pair, k) in enumerate(pairings(names, args.games, seed)):
            job = Job(i, game, game_seed, (a, b), (scripts[a], scripts[b]), args.sandbox, config, args.turn_ms,
                      pair, k, files=(files[pair[0]], files[pair[1]]))
            jobs.append(replace(job, replay_path=str(Path(args.replay_dir) / f"{job.name}.json.gz")
                                if args.replay_dir else None,
                                log_dir=str(Path(args.log_dir) / job.name) if args.log_dir else None))
        print(f"armada: tournament, {game}, seed {seed}: {len(names)} bots, {len(jobs)} games, "
              f"{min(args.jobs, len(jobs))} at once", file=sys.stderr)
        standings = Standings(names)
        run_jobs(jobs, args.jobs, standings)
    if args.json:
        print(json.dumps({"game": game, "seed": seed, "games_per_pair": args.games, **standings.to_dict()}))
    else:
        print(f"game: {game}   seed: {seed}   games per pair: {args.games}\n")
        print(render(standings, game))
        if standings.played:
            print()
            print(games_table(standings, game))
        if args.replay_dir:
            print(f"\nreplays: {args.replay_dir}/A-vs-B-gameK-seedS.json.gz")
        if args.log_dir:
            print(("" if args.replay_dir else "\n") + f"logs:    {args.log_dir}/A-vs-B-gameK-seedS/seatN-NAME.log")
    return 1 if standings.errors else 0


def run_jobs(jobs: list[Job], workers: int, standings: Standings) -> None:
    """Play all jobs in a process pool, feeding results to `standings` and a progress bar."""
    progress = output.Progress(len(jobs))
    progress.start()
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context,
                             initializer=_worker_start, initargs=(stop,)) as pool:
        futures: dict[Future[dict[str, Any]], Job] = {pool.submit(play_job, job): job for job in jobs}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    job = futures[future]
                    try:
                        result = future.result()
                    except Exception as exc:  # the worker process itself died
                        result = {"error": f"worker failed: {exc.__class__.__name__}: {exc}"}
                    if "error" in result:
                        standings.errors.append(f"game {job.index} ({job.seats[0]} vs {job.seats[1]}, "
                                                f"seed {job.seed}): {result['error']}")
                        progress.advance(error=True)
                    else:
                        standings.add_game(job, result)
                        progress.advance()
        except BaseException:  # (the futures left are failed by the pool as its workers stop)
            _stop_workers(stop)
            raise
        finally:
            progress.finish()
