"""Scale targets (issue 17): a season's site costs no more than a small one, measured side by side.

Two sites in PostgreSQL, each in its own database, seeded by `manage.py seed_scale` when missing
and kept (a rerun reuses them; the database's name carries a fingerprint of the seeder and the
migrations, so a change of either seeds anew and drops the stale copy):

    small: 100 Galaxy bots, 10,000 matches, a league of 100 races
    large: 10,000 Galaxy bots, 1,000,000 matches, a league of 1,000 races

Each is served by gunicorn as `make up` serves it (infra/gunicorn.conf.py, DEBUG off, static files
collected) on a loopback port, and wrk (Debian's) loads the same requests on both, alternating
small and large request by request, ROUNDS times; the least disturbed round of each (the lowest
p50, the lowest p99) counts, as the machine is shared. Requests: the ladder's first and last
page, the league, the page of the bot with the most games, its API match list 1,000 entries deep
(reached by following `next`), a match page with its replay, the ladder's, the match list's and
the bot list's API, and /status/ (its estimates read the queue and the last minutes' rating changes). Then,
per site, `bench/_scale_probe.py` times one matchmaker tick (8 matches made) and the recording
of one finished ranked match (ratings included), each inside a rolled-back transaction,
in two passes alternating small and large (the lower median of each counts).

Prints p50 and p99 per request and site, and ends with the target lines:
    target scale-page-p50: WORST_RATIO <= 1.5      (large / small, the worst request)
    target scale-page-p99: WORST_RATIO <= 2.0
    target scale-matchmaker-tick: RATIO <= 2       (tick at 10,000 / at 100 playable versions)
    target scale-rating-update: RATIO <= 1.5       (recording one ranked result, large / small)
    target scale-seed-minutes: MINUTES <= 15       (the large seed; kept from when it was made)

Run: .venv/bin/python bench/scale.py [--rounds N] [--seconds S]   (PostgreSQL: SCALE_DATABASE_URL,
else DATABASE_URL when it is PostgreSQL, else infra/postgres.sh as root)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository root: `tests` (its LocalSite) is importable

from tests.support.localsite import LocalSite  # noqa: E402

PY = sys.executable
SIZES = {"small": (100, 10_000, 100), "large": (10_000, 1_000_000, 1_000)}
SEED = 17
BOUNDS = {"scale-page-p50": 1.5, "scale-page-p99": 2.0, "scale-matchmaker-tick": 2.0, "scale-rating-update": 1.5,
          "scale-seed-minutes": 15.0}
DATA = ROOT / "var" / "bench-scale"
PROBE_PASSES = 2  # runs of bench/_scale_probe.py per site, alternating


@dataclass
class Site:
    size: str
    database: str
    url: str  # DATABASE_URL of its database
    folder: Path
    seed_seconds: float = 0.0
    probe: dict[str, object] = field(default_factory=dict)
    local: LocalSite | None = None


def admin_url() -> str:
    """A PostgreSQL URL whose role may create databases."""
    for name in ("SCALE_DATABASE_URL", "DATABASE_URL"):
        value = os.environ.get(name, "")
        if value.startswith(("postgres://", "postgresql://")):
            return value
    done = subprocess.run([str(ROOT / "infra" / "postgres.sh")], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def psql(url: str, sql: str) -> str:
    """One statement through psycopg (autocommit); the first column of the first row, or ''."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(sql).fetchall() if sql.lstrip().upper().startswith("SELECT") else []
        if not sql.lstrip().upper().startswith("SELECT"):
            conn.execute(sql)
    return str(rows[0][0]) if rows and rows[0][0] is not None else ""


def fingerprint() -> str:
    """Of the seeder's code and every migration's name: a change of either seeds the sites anew."""
    digest = hashlib.sha256(str(SEED).encode())
    for path in sorted((ROOT / "platform" / "armada_web" / "ops" / "scale").glob("*.py")):
        digest.update(path.read_bytes())
    for path in sorted((ROOT / "platform" / "armada_web").glob("*/migrations/0*.py")):
        digest.update(path.name.encode())
    return digest.hexdigest()[:10]


def site_env(site: Site) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": site.url, "ARMADA_DATA_DIR": str(site.folder), "DEBUG": "false",
            "SECRET_KEY": "bench-" + hashlib.sha256(site.database.encode()).hexdigest(), "ARMADA_HTTPS": "false",
            "THROTTLE_ANON": "10000000/min", "THROTTLE_USER": "10000000/min", "THROTTLE_DATASET": "10000000/min",
            "CACHE_PREFIX": f"bench-scale-{secrets.token_hex(4)}", "DJANGO_SETTINGS_MODULE": "armada_web.settings",
            "PYTHONUNBUFFERED": "1", "DB_CONN_MAX_AGE": "600",
            # no worker recycling inside a measurement: a fresh worker's first requests (templates,
            # connections) fall into the 1 % tail at random on either site; it is not the data's cost
            "WEB_MAX_REQUESTS": "0"}


def manage(site: Site, *argv: str, quiet: bool = True) -> None:
    """`manage.py` on `site`, with the development data app (`seed_scale`) installed for the command."""
    subprocess.run([PY, "manage.py", *argv], cwd=ROOT, env={**site_env(site), "ARMADA_DEVDATA": "true"}, check=True,
                   stdout=subprocess.DEVNULL if quiet else None)


def ensure(size: str, admin: str, tag: str) -> Site:
    """The size's kept database, seeded now if missing (stale ones of that size dropped)."""
    database = f"armada_scale_{size}_{tag}"
    site = Site(size, database, with_database(admin, database), DATA / database)
    existing = psql(admin, "SELECT string_agg(datname, ' ') FROM pg_database "
                           f"WHERE datname LIKE 'armada_scale_{size}_%'")
    for name in existing.split():
        if name != database:
            print(f"dropping the stale {name}", flush=True)
            psql(admin, f'DROP DATABASE "{name}"')
            shutil.rmtree(DATA / name, ignore_errors=True)
    comment = psql(admin, f"SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '{database}'")
    if comment.startswith("seeded in "):
        site.seed_seconds = float(comment.split()[2])
        print(f"{size}: kept database {database} (seeded earlier in {site.seed_seconds / 60:.1f} min)", flush=True)
        manage(site, "migrate", "--noinput", "-v0")
        return site
    if existing and database in existing.split():
        psql(admin, f'DROP DATABASE "{database}"')  # a seed that did not finish
    shutil.rmtree(site.folder, ignore_errors=True)
    site.folder.mkdir(parents=True)
    psql(admin, f'CREATE DATABASE "{database}"')
    manage(site, "migrate", "--noinput", "-v0")
    bots, matches, races = SIZES[size]
    print(f"{size}: seeding {database}: {bots:,} bots, {matches:,} matches, {races:,} races", flush=True)
    start = time.monotonic()
    manage(site, "seed_scale", "--bots", str(bots), "--matches", str(matches), "--races", str(races),
           "--seed", str(SEED), quiet=False)
    site.seed_seconds = time.monotonic() - start
    psql(admin, f"COMMENT ON DATABASE \"{database}\" IS 'seeded in {site.seed_seconds:.1f} s'")
    return site


def warm(site: Site) -> None:
    """Read the site's tables and indexes once into the operating system's cache (pg_prewarm's `read`
    mode; shared buffers untouched), as a host with the RAM for its database has them: otherwise the
    large site's first touch of a random bot's rows is a disk read (0.3 to 0.5 ms a page on this VM),
    a cost of the disk's state after a restart or a seed, not of the data's size. The extension
    is created by PostgreSQL's superuser (as root, for a local server); without it nothing is warmed."""
    try:
        psql(site.url, "CREATE EXTENSION IF NOT EXISTS pg_prewarm")
    except Exception:  # the role may not create it: PostgreSQL's superuser does, when it is ours
        parts = urlsplit(site.url)
        if os.geteuid() == 0 and parts.hostname in ("127.0.0.1", "localhost") and shutil.which("psql"):
            subprocess.run(["su", "postgres", "-c", f"psql -q -p {parts.port or 5432} -d {site.database} "
                            "-c 'CREATE EXTENSION IF NOT EXISTS pg_prewarm'"], check=False,
                           capture_output=True)
    start = time.monotonic()
    try:
        pages = psql(site.url, "SELECT sum(pg_prewarm(c.oid, 'read')) FROM pg_class c "
                               "JOIN pg_namespace n ON n.oid = c.relnamespace "
                               "WHERE n.nspname IN ('public', 'pg_toast') AND c.relkind IN ('r', 'i', 't') "
                               "AND pg_has_role(c.relowner, 'USAGE')")
    except Exception as exc:
        print(f"{site.size}: not warmed (pg_prewarm: {str(exc).splitlines()[0]})", flush=True)
        return
    print(f"{site.size}: read {int(pages or 0) * 8 / 1024:,.0f} MiB of tables and indexes into the OS cache in "
          f"{time.monotonic() - start:.1f} s", flush=True)


def wrk(url: str, seconds: int, connections: int) -> tuple[float, float, int]:
    """(p50 ms, p99 ms, requests) of wrk against `url`; fails on any error or non-2xx answer."""
    done = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s", url],
                          capture_output=True, text=True, timeout=seconds + 60, check=True)
    out = done.stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw failures on {url}:\n{out}")
    percent = dict(re.findall(r"^\s*(50|99)(?:\.0+)?%\s+([\d.]+[a-z]+)\s*$", out, re.M))
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    if not {"50", "99"} <= percent.keys():
        raise RuntimeError(f"wrk printed no latency percentiles for {url}:\n{out}")
    return _ms(percent["50"]), _ms(percent["99"]), total


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def serve(site: Site) -> None:
    manage(site, "collectstatic", "--noinput", "-v0")
    logs = site.folder / "logs"
    logs.mkdir(exist_ok=True)
    site.local = LocalSite(site_env(site), logs)
    site.local.start_gunicorn(workers=2)
    site.local.wait_until(f"the {site.size} site", 90, site.local.web_answers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5, help="wrk's duration per request, site and round")
    parser.add_argument("--connections", type=int, default=2)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        print("wrk is not installed (infra/install.sh installs it)")
        return 1
    admin = admin_url()
    tag = fingerprint()
    DATA.mkdir(parents=True, exist_ok=True)
    sites = [ensure(size, admin, tag) for size in SIZES]
    for site in sites:
        warm(site)
    for _ in range(PROBE_PASSES):  # small, large, small, large: the least disturbed pass of each counts
        for site in sites:
            done = subprocess.run([PY, str(ROOT / "bench" / "_scale_probe.py")], cwd=ROOT, env=site_env(site),
                                  capture_output=True, text=True, check=False)
            if done.returncode:
                raise RuntimeError(f"the probe failed on {site.size}:\n{done.stderr[-3000:]}")
            probe = json.loads(done.stdout.strip().splitlines()[-1])
            if site.probe:
                for key in ("tick_median", "record_median"):
                    probe[key] = min(probe[key], site.probe[key])  # type: ignore[type-var]
            site.probe = probe
    try:
        for site in sites:
            serve(site)
        results = measure(sites, args.rounds, args.seconds, args.connections)
    finally:
        for site in sites:
            if site.local is not None:
                site.local.stop()
    return report(sites, results)


def measure(sites: list[Site], rounds: int, seconds: int, connections: int) -> dict[str, dict[str, list[float]]]:
    """name -> size -> [best p50, best p99] over the rounds."""
    names = list(sites[0].probe["paths"])  # type: ignore[arg-type]
    best: dict[str, dict[str, list[float]]] = {n: {s.size: [1e12, 1e12] for s in sites} for n in names}
    print(f"\nwrk -t1 -c{connections} -d{seconds}s --latency per request and site, {rounds} rounds, small and large "
          f"alternating; {len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
    for site in sites:  # every page answers 200 before it is measured
        for name in names:
            path = site.probe["paths"][name]  # type: ignore[index]
            with urllib.request.urlopen(site.local.url + path, timeout=60) as response:  # type: ignore[union-attr]
                assert response.status == 200, (site.size, path, response.status)
            wrk(site.local.url + path, 1, connections)  # type: ignore[union-attr]
    for round_ in range(rounds):
        for name in names:
            for site in sites:
                path = site.probe["paths"][name]  # type: ignore[index]
                p50, p99, total = wrk(site.local.url + path, seconds, connections)  # type: ignore[union-attr]
                entry = best[name][site.size]
                entry[0], entry[1] = min(entry[0], p50), min(entry[1], p99)
                print(f"  round {round_ + 1} {name:<17} {site.size:<5} p50 {p50:8.2f} ms  p99 {p99:8.2f} ms  "
                      f"({total} requests)  {path}", flush=True)
    return best


def report(sites: list[Site], best: dict[str, dict[str, list[float]]]) -> int:
    small, large = sites
    print(f"\n{'request':<18} {'small p50':>10} {'large p50':>10} {'ratio':>6}   {'small p99':>10} "
          f"{'large p99':>10} {'ratio':>6}")
    worst50 = worst99 = 0.0
    for name, by_size in best.items():
        (s50, s99), (l50, l99) = by_size[small.size], by_size[large.size]
        r50, r99 = l50 / s50, l99 / s99
        worst50, worst99 = max(worst50, r50), max(worst99, r99)
        print(f"{name:<18} {s50:8.2f}ms {l50:8.2f}ms {r50:6.2f}   {s99:8.2f}ms {l99:8.2f}ms {r99:6.2f}")
    tick = large.probe["tick_median"] / small.probe["tick_median"]  # type: ignore[operator]
    record = large.probe["record_median"] / small.probe["record_median"]  # type: ignore[operator]
    for site in sites:
        print(f"{site.size}: {site.probe['playing']} playing Galaxy versions; tick (8 matches) median "
              f"{site.probe['tick_median'] * 1000:.1f} ms, recording a ranked result median "  # type: ignore[operator]
              f"{site.probe['record_median'] * 1000:.1f} ms; seeded in {site.seed_seconds / 60:.1f} min")  # type: ignore[operator]
    figures = {"scale-page-p50": worst50, "scale-page-p99": worst99, "scale-matchmaker-tick": tick,
               "scale-rating-update": record, "scale-seed-minutes": large.seed_seconds / 60}
    print()
    for name, value in figures.items():
        bound = BOUNDS[name]
        print(f"target {name}: {value:.2f} <= {bound:g} {'ok' if value <= bound else 'short'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
