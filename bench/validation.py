"""Validation speed: upload-to-valid through the site vs the same game played directly, in one run.

A throw-away site (bench/_site.py: fresh SQLite database, `manage.py runserver`, one Celery
worker on its own queue, Redis and Docker) validates the Galaxy starter `greedy` and the
Mothership Down starter `balanced`. Each round, per game, interleaved:

1. platform: `POST /api/bots/{id}/versions/` (through the SDK's ApiClient, as `armada submit`)
   and `GET /api/versions/{id}/` every POLL_S until the version is final; the time is from
   the start of the upload to the client seeing `valid`. The code differs each round (a
   comment with the round number; the site refuses a copy of the newest version).
2. direct: the same validation game, same code, same seed (the platform seeds with the
   version's id), same configuration, as the wall-clock of one whole command
   `armada play main.py builtin:OPPONENT --game G --sandbox docker --seed S [--config ...]`.
3. in-process (for the breakdown only): that game through `play_match` with one DockerBot per
   seat, in this process: the game without the CLI's start-up.

Round 0 warms everything up and is not counted; medians of ROUNDS rounds. Ratio per game =
platform median / direct median; the target uses the worse of the two games.

Run: .venv/bin/python bench/validation.py [--pool solo|prefork]   (needs Redis, the Docker engine and
armada/bot:latest; --pool is the worker's Celery pool: solo, the default, as the tests; prefork
with one child as `make up`)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _site import BenchSite

from armada.botspec import resolve_bot, starter_file
from armada.cli import polling
from armada.cli.client import ApiClient, Upload
from armada.referee.match import play_match
from armada_sandbox import DockerBot, SandboxUnavailable, check_ready

ROUNDS = 5
POLL_S = 0.05
BOUND = 1.5
GALAXY_TURNS = 30
FINAL = {"valid", "invalid", "error"}
ARMADA = Path(sys.executable).with_name("armada")
#: `armada submit`'s polling (sdk/armada/cli/polling.py): first pause, growth, longest pause.
SUBMIT_POLL = (polling.POLL_FIRST_S, polling.POLL_GROWTH, polling.POLL_MAX_S)


@dataclass(frozen=True)
class Game:
    name: str
    starter: str
    opponent: str
    config: dict | None

    def code(self, round_no: int) -> str:
        return starter_file(self.starter, self.name).read_text() + f"\n# bench round {round_no}\n"


GAMES = [
    Game("galaxy", "greedy", "random", {"max_turns": GALAXY_TURNS}),
    Game("mothership", "balanced", "balanced", None),
]


@dataclass
class Samples:
    platform: list[float] = field(default_factory=list)
    direct: list[float] = field(default_factory=list)
    inprocess: list[float] = field(default_factory=list)
    #: per platform round: offsets from the start of the upload, by mark name
    marks: list[dict[str, float]] = field(default_factory=list)
    polls: list[float] = field(default_factory=list)
    submit_estimate: list[float] = field(default_factory=list)


def stamp(text: str | None) -> float:
    return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()


def platform_round(client: ApiClient, bot_id: int, code: str) -> tuple[float, dict[str, float], dict, list[float]]:
    """Upload, poll until final; returns (seconds, marks, final version, poll request seconds)."""
    began = time.time()
    version = client.request("POST", f"/api/bots/{bot_id}/versions/", upload=Upload("main.py", code.encode()))
    answered = time.time()
    polls = []
    while version["status"] not in FINAL:
        if time.time() - began > 300:
            raise RuntimeError(f"version {version['id']} still {version['status']} after 300 s")
        time.sleep(POLL_S)
        asked = time.time()
        version = client.request("GET", f"/api/versions/{version['id']}/")
        polls.append(time.time() - asked)
    seen = time.time()
    if version["status"] != "valid":
        raise RuntimeError(f"version {version['id']} is {version['status']}: {version['detail']}")
    marks = {"created": stamp(version["created"]) - began, "answered": answered - began,
             "started": stamp(version["started"]) - began, "finished": stamp(version["finished"]) - began,
             "seen": seen - began, "began": began}
    return seen - began, marks, version, polls


def direct_round(game: Game, path: Path, seed: int) -> float:
    argv = [str(ARMADA), "play", str(path), f"builtin:{game.opponent}", "--game", game.name,
            "--sandbox", "docker", "--seed", str(seed), "--json"]
    if game.config is not None:
        argv += ["--config", json.dumps(game.config)]
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"armada play exited {done.returncode}: {done.stderr[-1000:]}")
    mine = json.loads(done.stdout)["players"][0]
    if mine["status"] != "ok":
        raise RuntimeError(f"armada play: seat 1 {mine['status']}: {mine['detail']}")
    return seconds


def inprocess_round(game: Game, path: Path, seed: int) -> float:
    sources = [resolve_bot(str(path), game.name), resolve_bot(f"builtin:{game.opponent}", game.name)]
    try:
        began = time.perf_counter()
        bots = {seat: DockerBot(src.code_dir, src.entry, label=src.label, labels={"armada.match": "bench"})
                for seat, src in zip((1, 2), sources, strict=True)}
        outcome = play_match(game.name, bots, seed=seed, config=game.config)
        seconds = time.perf_counter() - began
    finally:
        for src in sources:
            src.close()
    if outcome.players[0].status != "ok":
        raise RuntimeError(f"in-process: seat 1 {outcome.players[0].status}: {outcome.players[0].detail}")
    return seconds


def submit_sees(marks: dict[str, float], get_s: float) -> float:
    """When `armada submit`'s polling schedule would first see the finished version (from the upload's start)."""
    first, growth, longest = SUBMIT_POLL
    at, pause = marks["answered"], first
    while True:
        at += pause + get_s
        if at - get_s >= marks["finished"]:
            return at
        pause = min(pause * growth, longest)


def run(site: BenchSite, work: Path) -> dict[str, Samples]:
    client = ApiClient(site.url, site.token())
    bots = {g.name: client.request("POST", "/api/bots/", json_body={"name": f"bench-{g.name}", "game": g.name})["id"]
            for g in GAMES}
    samples = {g.name: Samples() for g in GAMES}
    for round_no in range(ROUNDS + 1):
        for game in GAMES:
            code = game.code(round_no)
            folder = work / f"{game.name}-{round_no}"
            folder.mkdir()
            (folder / "main.py").write_text(code)
            total, marks, version, polls = platform_round(client, bots[game.name], code)
            direct = direct_round(game, folder / "main.py", seed=version["id"])
            inprocess = inprocess_round(game, folder / "main.py", seed=version["id"])
            label = "warm-up" if round_no == 0 else f"round {round_no}"
            print(f"   {label:8s} {game.name:10s} platform {total:6.3f} s   direct {direct:6.3f} s   "
                  f"in-process {inprocess:6.3f} s   (version {version['id']}, {len(polls)} polls)")
            if round_no == 0:
                continue
            s = samples[game.name]
            s.platform.append(total)
            s.direct.append(direct)
            s.inprocess.append(inprocess)
            s.marks.append(marks)
            s.polls += polls
    # the worker's own log: when it received each task and when the task body ended
    events = sorted(site.task_events().values(), key=lambda e: e.get("received", 0.0))
    for s in samples.values():
        for marks in s.marks:
            began = marks["began"]
            for event in events:
                if began <= event.get("received", -1.0) <= began + marks["seen"]:
                    marks["received"] = event["received"] - began
                    if "succeeded" in event:
                        marks["succeeded"] = event["succeeded"] - began
                    break
        get_s = statistics.median(s.polls) if s.polls else 0.0
        s.submit_estimate = [submit_sees(m, get_s) for m in s.marks]
    return samples


STEPS = [  # (from mark, to mark, what the difference is)
    ("began", "created", "upload request until the version row is saved (parse, check, storage)"),
    ("created", "answered", "rest of the upload request (commit, on_commit send, 201 answer)"),
    ("created", "received", "row saved -> worker logs the task received (broker, pick-up)"),
    ("received", "started", "worker received -> version claimed (validating)"),
    ("started", "finished", "claimed -> result recorded (Docker check, archive, unpack, game, write)"),
    ("finished", "seen", "result recorded -> the client's poll sees it"),
]


def median_mark(s: Samples, name: str) -> float | None:
    values = [m[name] for m in s.marks if name in m] if name != "began" else [0.0]
    return statistics.median(values) if values else None


def main() -> int:
    parser = argparse.ArgumentParser(description="Validation speed: the site vs `armada play --sandbox docker`.")
    parser.add_argument("--pool", choices=("solo", "prefork"), default="solo", help="the worker's Celery pool")
    args = parser.parse_args()
    try:
        check_ready(on_stale=lambda problem: print(f"warning: {problem}", file=sys.stderr))
    except SandboxUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"1. upload-to-valid through the site vs `armada play --sandbox docker` (median of {ROUNDS}, "
          f"after a warm-up; interleaved; platform polls every {POLL_S * 1000:.0f} ms; worker pool {args.pool})")
    env = {"ARMADA_GALAXY_VALIDATION_TURNS": str(GALAXY_TURNS), "ARMADA_UPLOADS_PER_HOUR": "1000",
           "THROTTLE_USER": "100000/min"}
    with BenchSite(env, pool=args.pool) as site, tempfile.TemporaryDirectory(prefix="armada-bench-") as tmp:
        samples = run(site, Path(tmp))

    print("2. medians")
    ratios = {}
    for game in GAMES:
        s = samples[game.name]
        platform, direct, inprocess = (statistics.median(v) for v in (s.platform, s.direct, s.inprocess))
        ratios[game.name] = platform / direct
        print(f"   {game.name:10s} platform {platform:6.3f} s   direct {direct:6.3f} s   ratio {ratios[game.name]:.2f}"
              f"   (in-process game {inprocess:6.3f} s: platform / in-process {platform / inprocess:.2f}; "
              f"`armada play` start-up and checks {direct - inprocess:+.3f} s)")
    print("3. where the platform's time goes (medians of each step, seconds)")
    for game in GAMES:
        s = samples[game.name]
        print(f"   {game.name}:")
        for start, end, what in STEPS:
            values = [m[end] - m[start] if start != "began" else m[end]
                      for m in s.marks if end in m and (start == "began" or start in m)]
            shown = f"{statistics.median(values):7.3f}" if values else "      ?"
            print(f"     {shown}  {what}")
        worker_body = [m["succeeded"] - m["received"] for m in s.marks if "succeeded" in m and "received" in m]
        if worker_body:
            print(f"     ({statistics.median(worker_body):.3f} s from received to the task's end in the worker's log)")
        print(f"     poll GET {statistics.median(s.polls) * 1000:.1f} ms median over {len(s.polls)} requests; "
              f"`armada submit`'s own polling ({SUBMIT_POLL[0]:g} s, x{SUBMIT_POLL[1]:g}) would see `valid` at "
              f"~{statistics.median(s.submit_estimate):.3f} s")
    worst = max(ratios, key=lambda name: ratios[name])
    ratio = ratios[worst]
    print(f"   validation-overhead = the worse game's ratio ({worst})")
    print()
    verdict = "ok" if ratio <= BOUND else "short"
    print(f"target validation-overhead: {ratio:.2f} <= {BOUND:g} {verdict}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted; the bench site was stopped", file=sys.stderr)
        sys.exit(130)
