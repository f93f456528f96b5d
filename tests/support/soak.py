"""A soak of a live site: Locust (tests/support/soak_locust.py) on loopback, bounded in time, with page
views, API reads, uploads and challenges at once while the ladder plays, and every process of the
site watched: memory (RSS) and open file descriptors of each, the bot containers of the engine, and
matches stuck (running without a heartbeat, or queued for minutes). bench/faults.py runs it for ten
minutes; tests/live/test_soak_live.py for one.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.localsite import ROOT, LocalSite

LOCUSTFILE = Path(__file__).with_name("soak_locust.py")
#: Seconds between two samples of the processes.
SAMPLE_S = 10.0


def rss_and_fds(pid: int) -> tuple[float, int] | None:
    """Resident memory (MiB) and open descriptors of `pid`; None when it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0, fds
    return None


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def processes(site: LocalSite, extra: dict[str, int] | None = None) -> dict[str, int]:
    """Every process of the site by a stable name ("worker-matches", "worker-matches/1", ...), and `extra`."""
    named = dict(extra or {})
    for name, proc in site.procs.items():
        if proc.poll() is None:
            named[name] = proc.pid
            for number, child in enumerate(sorted(children_of(proc.pid)), start=1):
                named[f"{name}/{number}"] = child
    return named


@dataclass
class Series:
    """One process's samples: (seconds since the start, RSS MiB, descriptors)."""

    pid: int
    points: list[tuple[float, float, int]] = field(default_factory=list)

    def window(self, start: float, end: float) -> list[tuple[float, float, int]]:
        return [p for p in self.points if start <= p[0] <= end]


@dataclass
class SoakReport:
    seconds: float
    warmup_s: float
    status: dict[str, int]
    bad: list[str]
    series: dict[str, Series]
    containers: list[tuple[float, int]]
    stuck: list[str]

    @property
    def requests(self) -> int:
        return sum(self.status.values())

    @property
    def errors(self) -> int:
        """Answers 5xx and requests with no answer at all."""
        return sum(n for code, n in self.status.items() if code == "0" or int(code) >= 500)

    def growth(self) -> dict[str, tuple[float, float, int, int]]:
        """Per process: mean RSS over the minute after the warm-up and over the last minute (MiB),
        descriptors then and at the end."""
        out = {}
        for name, series in self.series.items():
            first = series.window(self.warmup_s, self.warmup_s + 60)
            last = series.window(self.seconds - 60, self.seconds + SAMPLE_S)
            if first and last:
                out[name] = (statistics.mean(p[1] for p in first), statistics.mean(p[1] for p in last),
                             max(p[2] for p in first), last[-1][2])
        return out

    def flat(self, name: str) -> bool:
        """Memory flat after the warm-up: at most max(8 MiB, 5 %) more over the rest of the run."""
        before, after, _fd0, _fd1 = self.growth()[name]
        return after - before <= max(8.0, 0.05 * before)

    def lines(self) -> list[str]:
        rows = [f"soak: {self.seconds:.0f} s, {self.requests} requests, answers "
                + ", ".join(f"{code}: {n}" for code, n in sorted(self.status.items())),
                f"{'process':<26} {'RSS after warm-up':>18} {'RSS at the end':>15} {'growth':>8} {'fds':>9}  flat"]
        for name, (before, after, fd0, fd1) in sorted(self.growth().items()):
            rows.append(f"{name:<26} {before:>15.1f} MiB {after:>11.1f} MiB {after - before:>+7.1f} "
                        f"{fd0:>4} -> {fd1:<4} {'yes' if self.flat(name) else 'NO'}")
        if self.containers:
            counts = [n for t, n in self.containers if t >= self.warmup_s]
            rows.append(f"bot containers after the warm-up: {min(counts)} to {max(counts)}, "
                        f"at the end {self.containers[-1][1]}")
        rows.append(f"stuck matches: {len(self.stuck)}" + (f" ({'; '.join(self.stuck[:5])})" if self.stuck else ""))
        rows += [f"  no answer or 5xx: {line}" for line in self.bad[:10]]
        return rows

    def fd_growth(self) -> int:
        """The most descriptors any process gained after the warm-up."""
        return max((fd1 - fd0 for _b, _a, fd0, fd1 in self.growth().values()), default=0)

    def container_growth(self) -> int:
        counts = [n for t, n in self.containers if t >= self.warmup_s]
        return (counts[-1] - counts[0]) if counts else 0


def run_soak(site: LocalSite, plan: dict[str, Any], seconds: float, users: int, folder: Path, *,
             warmup_s: float = 120.0, extra: dict[str, int] | None = None,
             containers: Callable[[], int] | None = None, stuck: Callable[[], list[str]] | None = None,
             say: Callable[[str], None] = print) -> SoakReport:
    """Run Locust against `site` for `seconds` with `users` users, sampling every process meanwhile."""
    plan_file, out_file = folder / "soak-plan.json", folder / "soak-out.json"
    plan_file.write_text(json.dumps(plan))
    locust = Path(sys.executable).with_name("locust")
    argv = [str(locust), "-f", str(LOCUSTFILE), "--headless", "--users", str(users), "--spawn-rate", str(users),
            "--run-time", f"{int(seconds)}s", "--host", site.url, "--only-summary", "--stop-timeout", "10",
            "--loglevel", "WARNING"]
    env = {**os.environ, "ARMADA_SOAK_PLAN": str(plan_file), "ARMADA_SOAK_OUT": str(out_file)}
    series: dict[str, Series] = {}
    boxes: list[tuple[float, int]] = []
    stuck_seen: set[str] = set()
    done = threading.Event()
    started = time.monotonic()

    def sampler() -> None:
        while True:
            now = time.monotonic() - started
            for name, pid in processes(site, extra).items():
                got = rss_and_fds(pid)
                if got is not None:
                    entry = series.get(name)
                    if entry is None or entry.pid != pid:
                        entry = series[name] = Series(pid)  # a new process under that name starts anew
                    entry.points.append((now, got[0], got[1]))
            if containers is not None:
                try:
                    boxes.append((now, containers()))
                except Exception as exc:  # the engine busy: this sample is missed
                    say(f"soak: could not count containers ({exc})")
            if stuck is not None:
                try:
                    stuck_seen.update(stuck())
                except Exception as exc:  # the database busy: this sample is missed
                    say(f"soak: could not look for stuck matches ({exc})")
            if done.wait(SAMPLE_S):
                return

    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    with open(folder / "locust.log", "wb") as log:
        proc = subprocess.run(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                              timeout=seconds + 120, check=False)
    done.set()
    thread.join(30)
    if not out_file.exists():
        raise RuntimeError(f"locust wrote no results (exit {proc.returncode}): "
                           f"{(folder / 'locust.log').read_text()[-3000:]}")
    result = json.loads(out_file.read_text())
    return SoakReport(seconds=time.monotonic() - started, warmup_s=warmup_s, status=result["status"],
                      bad=result["bad"], series=series, containers=boxes, stuck=sorted(stuck_seen))
