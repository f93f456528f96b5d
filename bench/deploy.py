"""Deployment speed targets (issue 16), each measured side by side in one run.

`gunicorn-vs-runserver`: requests per second of the Galaxy ladder page /ladder/galaxy/ served by
gunicorn as `make up` runs it (infra/gunicorn.conf.py: workers from the cores) against Django's
`manage.py runserver`, on the same data: one fresh SQLite database (migrated, static files
collected: hashed names, as in production) with RATED rated Galaxy bots written directly, DEBUG
off. Each server is started in turn on a loopback port and loaded with wrk (Debian's package),
THREADS threads and CONNECTIONS connections for SECONDS seconds after a short warm-up, ROUNDS
times alternately; the best round of each counts (the machine is shared: the least disturbed).
Every response must be a 200 with the ladder in it (wrk's non-2xx count and a page check).

`s3-match-overhead` (matches per minute with local files / with moto's S3 server) is the
platform's part of issue 16 and is added below when the site stores through django-storages.

Run: .venv/bin/python bench/deploy.py   (ends with one `target ...` line per target)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RATED = 300
THREADS, CONNECTIONS, SECONDS, WARMUP_SECONDS, ROUNDS = 2, 8, 8, 2, 3
BOUND = 2.0
PATH = "/ladder/galaxy/"


def main() -> int:
    folder = Path(tempfile.mkdtemp(prefix="armada-bench-deploy-"))
    os.environ.update({"ARMADA_DATA_DIR": str(folder), "ARMADA_SQLITE_PATH": str(folder / "armada.sqlite3"),
                       "DATABASE_URL": "", "DEBUG": "false", "CACHE_URL": "locmem://",
                       "DJANGO_SETTINGS_MODULE": "armada_web.settings", "PYTHONUNBUFFERED": "1"})
    sys.path.append(str(ROOT / "platform"))
    sys.path.insert(0, str(ROOT))  # the repository root: `tests` (its LocalSite) is importable
    try:
        lines = [gunicorn_vs_runserver(folder)]
        # s3-match-overhead: the lead's target goes here (lines.append(...)).
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print()
    for line in lines:
        print(line)
    return 0


def seed_ladder(rated: int) -> None:
    """A migrated database with `rated` active, valid, rated Galaxy versions (rows written directly)."""
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from armada_web.bots.models import Bot, BotVersion, VersionStatus
    from armada_web.ladder.models import Rating

    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    owners = User.objects.bulk_create([User(username=f"pilot{i}") for i in range(rated)])
    bots = Bot.objects.bulk_create([Bot(owner=owner, game="galaxy", name=f"fleet-{i}")
                                    for i, owner in enumerate(owners)])
    versions = BotVersion.objects.bulk_create([
        BotVersion(bot=bot, number=1, sha256=f"{i:064x}", size=100, files=1, status=VersionStatus.VALID, attempts=1)
        for i, bot in enumerate(bots)])
    for bot, version in zip(bots, versions, strict=True):
        bot.active_version = version
    Bot.objects.bulk_update(bots, ["active_version"], batch_size=500)
    Rating.objects.bulk_create([Rating(version=version, mu=25 + (i % 37) / 3, sigma=3 + (i % 5) / 2, games=10 + i % 40,
                                       wins=5 + i % 20, losses=5) for i, version in enumerate(versions)])


def wrk(url: str, seconds: int) -> tuple[float, int, int]:
    """(requests per second, requests, non-2xx responses) of wrk against `url` for `seconds`."""
    done = subprocess.run(["wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{seconds}s", "--timeout", "10s", url],
                          capture_output=True, text=True, timeout=seconds + 60, check=True)
    out = done.stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    failed = (int(bad.group(1)) if bad else 0) + (sum(map(int, errors.groups())) if errors else 0)
    return rate, total, failed


def measure(folder: Path, name: str, start: Callable[..., object], logs: Path) -> float:
    """Start one server of a fresh LocalSite, check its page, load it with wrk; its requests per second."""
    from tests.localsite import LocalSite

    site = LocalSite(dict(os.environ), logs)
    try:
        start(site)
        site.wait_until(name, 60, site.web_answers)
        with urllib.request.urlopen(site.url + PATH, timeout=10) as response:
            page = response.read().decode()
        assert response.status == 200 and "fleet-" in page, page[:500]
        wrk(site.url + PATH, WARMUP_SECONDS)
        rate, total, failed = wrk(site.url + PATH, SECONDS)
        if failed:
            raise RuntimeError(f"{name}: {failed} of {total} requests failed; see {logs}")
        print(f"  {name:<10} {rate:8.1f} requests/s  ({total} in {SECONDS} s)", flush=True)
        return rate
    finally:
        site.stop()


def gunicorn_vs_runserver(folder: Path) -> str:
    if not shutil.which("wrk"):
        return "target gunicorn-vs-runserver: 0 >= 2 short (wrk is not installed: infra/install.sh installs it)"
    seed_ladder(RATED)
    logs = folder / "logs"
    logs.mkdir()
    servers: dict[str, Callable[..., object]] = {"runserver": lambda site: site.start_web(),
                                                 "gunicorn": lambda site: site.start_gunicorn()}
    print(f"GET {PATH} with {RATED} rated bots (50 a page), wrk -t{THREADS} -c{CONNECTIONS} -d{SECONDS}s, "
          f"{ROUNDS} rounds each, alternating; {len(os.sched_getaffinity(0))} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    best = {name: 0.0 for name in servers}
    started = time.monotonic()
    for _ in range(ROUNDS):
        for name, start in servers.items():
            best[name] = max(best[name], measure(folder, name, start, logs))
    ratio = best["gunicorn"] / best["runserver"]
    print(f"best rounds: gunicorn {best['gunicorn']:.1f}/s, runserver {best['runserver']:.1f}/s: {ratio:.2f}x "
          f"({time.monotonic() - started:.0f} s)")
    return f"target gunicorn-vs-runserver: {ratio:.2f} >= {BOUND:g} {'ok' if ratio >= BOUND else 'short'}"


if __name__ == "__main__":
    raise SystemExit(main())
