"""Deployment speed targets (issue 16), each measured side by side in one run.

`gunicorn-vs-runserver`: requests per second of the Galaxy ladder page /ladder/galaxy/ served by
gunicorn as `make up` runs it (infra/gunicorn.conf.py: workers from the cores) against Django's
`manage.py runserver`, on the same data: one fresh SQLite database (migrated, static files
collected: hashed names, as in production) with RATED rated Galaxy bots written directly, DEBUG
off. Each server is started in turn on a loopback port and loaded with wrk (Debian's package),
THREADS threads and CONNECTIONS connections for SECONDS seconds after a short warm-up, ROUNDS
times alternately; the best round of each counts (the machine is shared: the least disturbed).
Every response must be a 200 with the ladder in it (wrk's non-2xx count and a page check).

`s3-match-overhead`: matches per minute played by one match worker (as `make up` runs it: warm
slots, the prefork pool with one child) storing through the local folder, against the same worker
storing in an S3 bucket of moto's standalone server over HTTP on loopback (reading both archives,
writing the replay and both logs there), the same MATCHES Galaxy matches (same bots, seeds and
the deployment's default config) in each round, rounds alternating, ROUNDS_S3 each after a
warm-up match; the best round of each counts. A round's time runs from sending the first match to the last one recorded.

Run: .venv/bin/python bench/deploy.py   (ends with one `target ...` line per target)
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RATED = 300
THREADS, CONNECTIONS, SECONDS, WARMUP_SECONDS, ROUNDS = 2, 8, 8, 2, 3
BOUND = 2.0
PATH = "/ladder/galaxy/"
MATCHES, ROUNDS_S3 = 6, 2
S3_BOUND = 1.2


def main() -> int:
    folder = Path(tempfile.mkdtemp(prefix="armada-bench-deploy-"))
    os.environ.update({"ARMADA_DATA_DIR": str(folder), "ARMADA_SQLITE_PATH": str(folder / "armada.sqlite3"),
                       "DATABASE_URL": "", "DEBUG": "false", "SECRET_KEY": secrets.token_urlsafe(50),
                       "ARMADA_HTTPS": "false", "CACHE_URL": "locmem://",
                       "DJANGO_SETTINGS_MODULE": "armada_web.settings", "PYTHONUNBUFFERED": "1",
                       # queues of its own: a `make up` beside it never takes the bench's tasks
                       "ARMADA_VALIDATION_QUEUE": f"bench-validation-{os.getpid()}",
                       "ARMADA_MATCHES_QUEUE": f"bench-matches-{os.getpid()}",
                       "ARMADA_CHALLENGES_QUEUE": f"bench-challenges-{os.getpid()}"})
    sys.path.append(str(ROOT / "platform"))
    sys.path.insert(0, str(ROOT))  # the repository root: `tests` (its LocalSite) is importable
    try:
        lines = [gunicorn_vs_runserver(folder), s3_match_overhead(folder)]
    finally:
        drop_queues()
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
    from armada_web.teams.services import personal_teams

    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    owners = User.objects.bulk_create([User(username=f"pilot{i}") for i in range(rated)])
    teams = personal_teams(users=[(u.pk, u.username) for u in owners])
    bots = Bot.objects.bulk_create([Bot(owner=owner, team_id=teams[owner.pk], game="galaxy", name=f"fleet-{i}")
                                    for i, owner in enumerate(owners)])
    versions = BotVersion.objects.bulk_create([
        BotVersion(bot=bot, number=1, sha256=f"{i:064x}", size=100, files=1, status=VersionStatus.VALID, attempts=1)
        for i, bot in enumerate(bots)])
    for bot, version in zip(bots, versions, strict=True):
        bot.active_version = version
    Bot.objects.bulk_update(bots, ["active_version"], batch_size=500)
    Rating.objects.bulk_create([Rating(version=version, game="galaxy", playing=True,  # (on the ladder: ladder.playing)
                                       mu=25 + (i % 37) / 3, sigma=3 + (i % 5) / 2, games=10 + i % 40,
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
    from tests.support.localsite import LocalSite

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
        print("gunicorn vs runserver: not measured, wrk is not installed (infra/install.sh installs it)")
        return "target gunicorn-vs-runserver: 0 >= 2 short"
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


def drop_queues() -> None:
    try:
        import redis

        redis.Redis.from_url(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0", socket_timeout=2).delete(
            *(os.environ[f"ARMADA_{name}_QUEUE"] for name in ("VALIDATION", "MATCHES", "CHALLENGES")))
    except Exception:  # no Redis: nothing was queued
        return


def two_versions() -> tuple[Any, Any]:
    """Two valid Galaxy versions (greedy, random), their archives in the local storage."""
    from django.contrib.auth.models import User

    from armada.botspec import starter_file
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot, upload_version

    versions = []
    for name, starter in (("s3-alpha", "greedy"), ("s3-bravo", "random")):
        owner = User.objects.create_user(name)
        bot = create_bot(user=owner, name=name, game="galaxy")
        version = upload_version(bot=bot, user=owner, filename="main.py",
                                 data=starter_file(starter, "galaxy").read_bytes())
        BotVersion.objects.filter(pk=version.pk).update(status="valid")
        refresh_active(bot=bot)
        versions.append(BotVersion.objects.get(pk=version.pk))
    return versions[0], versions[1]


def play_round(folder: Path, name: str, env: dict[str, str], versions: tuple[Any, Any], seeds: list[int]) -> float:
    """One match worker with `env`; a warm-up match, then len(seeds) matches: matches per minute."""
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match
    from tests.support.localsite import LocalSite

    logs = folder / f"logs-{name}"
    logs.mkdir(exist_ok=True)
    site = LocalSite({**os.environ, **env, "ARMADA_SANDBOX_WARM_PAIRS": "1"}, logs)
    queues = f"{os.environ['ARMADA_CHALLENGES_QUEUE']},{os.environ['ARMADA_MATCHES_QUEUE']}"
    site.start_worker("matches", queues, f"bench-{name}-{os.getpid()}@%h", pool="prefork")
    try:
        site.wait_until("the match worker", 60, lambda: " ready." in site.log("matches"))

        def played(ids: list[int]) -> None:
            deadline = time.monotonic() + 120 + 30 * len(ids)
            while Match.objects.filter(pk__in=ids, status__in=("queued", "running")).exists():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{name}: matches not played in time; see {logs}")
                if site.procs["matches"].poll() is not None:
                    raise RuntimeError(f"{name}: the worker exited; see {logs}")
                time.sleep(0.05)
            bad = list(Match.objects.filter(pk__in=ids).exclude(status="finished").values_list("reason", flat=True))
            if bad:
                raise RuntimeError(f"{name}: {len(bad)} matches not finished: {bad[0]}")

        played([create_match(game="galaxy", first=versions[0], second=versions[1], kind="ranked", seed=999).pk])
        began = time.monotonic()
        ids = [create_match(game="galaxy", first=versions[0], second=versions[1], kind="ranked", seed=seed).pk
               for seed in seeds]
        played(ids)
        elapsed = time.monotonic() - began
    finally:
        site.stop()
    rate = len(seeds) * 60 / elapsed
    print(f"  {name:<6} {rate:6.1f} matches/min  ({len(seeds)} in {elapsed:.1f} s)", flush=True)
    return rate


def s3_match_overhead(folder: Path) -> str:
    """target s3-match-overhead: matches per minute with local files / with moto's S3 server."""
    from tests.support.services import docker_problem, redis_problem

    problem = docker_problem() or redis_problem()
    if problem:
        print(f"s3 match overhead: not measured ({problem})")
        return f"target s3-match-overhead: 0 <= {S3_BOUND:g} short"
    import django

    django.setup()
    from django.core.files.storage import default_storage

    from tests.support.storage_server import MotoServer

    server = MotoServer(folder)
    try:
        bucket = server.bucket("armada-bench")
        versions = two_versions()
        client = bucket.client()
        for version in versions:  # the same archives under the same names in the bucket
            with default_storage.open(version.archive.name, "rb") as handle:
                client.put_object(Bucket=bucket.name, Key=version.archive.name, Body=handle.read())
        configs = {"local": {}, "s3": bucket.env()}
        seeds = list(range(1, MATCHES + 1))
        print(f"{MATCHES} Galaxy matches (the default config: up to 200 turns; greedy against random) a round, "
              f"one match worker (prefork, one child, a warm slot pair), {ROUNDS_S3} rounds each, alternating; "
              f"storage local or moto's S3 server at {bucket.endpoint_url}; load {os.getloadavg()[0]:.1f}",
              flush=True)
        best = dict.fromkeys(configs, 0.0)
        for _ in range(ROUNDS_S3):
            for name, env in configs.items():
                best[name] = max(best[name], play_round(folder, name, env, versions, seeds))
        stored = client.list_objects_v2(Bucket=bucket.name, Prefix="matches/").get("KeyCount", 0)
    finally:
        server.stop()
    if stored < 3 * MATCHES:
        raise RuntimeError(f"the S3 rounds stored {stored} objects, fewer than {3 * MATCHES}")
    ratio = best["local"] / best["s3"]
    print(f"best rounds: local {best['local']:.1f}/min, s3 {best['s3']:.1f}/min: {ratio:.2f}x "
          f"({stored} replay and log objects in the bucket)")
    return f"target s3-match-overhead: {ratio:.2f} <= {S3_BOUND:g} {'ok' if ratio <= S3_BOUND else 'short'}"


if __name__ == "__main__":
    raise SystemExit(main())
