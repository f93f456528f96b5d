"""The scale part of bench/integrity.py: the whole integrity report for a season of 10,000 bots and
1,000,000 matches (issue 28, "Scale"), timed cold and again incrementally.

The database is PostgreSQL's (as bench/scale.py finds it: SCALE_DATABASE_URL, else DATABASE_URL
when it is PostgreSQL, else infra/postgres.sh as root), one of its own, kept between runs
(`armada_integrity_large_<tag>`, the tag a fingerprint of the scale seeder's code, seed and
sizes; `--bots/--matches/--races` run a smaller trial in a database of its own):
- `manage.py seed_scale --bots 10000 --matches 1000000 --races 1000` (the scale seed), once;
- `manage.py seed_integrity` on it (devdata/scale/suspects.py, docs/integrity.md "At scale"):
  every Galaxy version's sources generated and stored as a validated version's archive, planted
  copies, sightings for every account with planted shared accounts and school networks, thrown
  games planted, and a closed season whose entries are the playing versions. Redone when its
  own code changes (the layer's tag is kept in the database's comment).

Then `bench/_integrity_probe.py` runs in that database: every fingerprint and finding deleted,
the report run once (cold: every version fingerprinted) and once more (incremental: nothing new
to fingerprint), each stage timed. The target is the cold run's minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from scale import admin_url, psql, with_database  # noqa: E402

PY = sys.executable
BOTS, MATCHES, RACES = 10_000, 1_000_000, 1_000
SEED = 17
DATA = ROOT / "var" / "bench-integrity"
SCALE_CODE = ROOT / "platform" / "armada_web" / "devdata" / "scale"
LAYER = ("suspects.py",)  # the integrity layer's code: a change redoes the layer only


def _digest(paths: list[Path], *extra: object) -> str:
    digest = hashlib.sha256(":".join(map(str, extra)).encode())
    for path in paths:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def base_tag(bots: int = BOTS, matches: int = MATCHES, races: int = RACES) -> str:
    """Of the scale seeder's code (the integrity layer's left out) and the sizes."""
    files = sorted(p for p in SCALE_CODE.glob("*.py") if p.name not in LAYER)
    return _digest(files, SEED, bots, matches, races)


def label(bots: int) -> str:
    """The database's name before its tag: `large` for the scale seed, else the bots (a trial)."""
    return "armada_integrity_large" if bots == BOTS else f"armada_integrity_{bots}bots"


def layer_tag() -> str:
    return _digest([SCALE_CODE / name for name in LAYER])


def env(url: str, folder: Path) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": url, "ARMADA_DATA_DIR": str(folder), "DEBUG": "false",
            "SECRET_KEY": "bench-integrity-" + hashlib.sha256(url.encode()).hexdigest(), "ARMADA_HTTPS": "false",
            "DJANGO_SETTINGS_MODULE": "armada_web.settings", "PYTHONUNBUFFERED": "1", "ARMADA_DEVDATA": "true"}


def manage(url: str, folder: Path, *argv: str, quiet: bool = False) -> None:
    subprocess.run([PY, "manage.py", *argv], cwd=ROOT, env=env(url, folder), check=True,
                   stdout=subprocess.DEVNULL if quiet else None)


def ensure(bots: int = BOTS, matches: int = MATCHES, races: int = RACES) -> tuple[str, Path, dict[str, float]]:
    """The kept database of that size (seeded now when missing), its data folder and the seed's figures."""
    admin = admin_url()
    database = f"{label(bots)}_{base_tag(bots, matches, races)}"
    url, folder = with_database(admin, database), DATA / database
    existing = psql(admin, "SELECT string_agg(datname, ' ') FROM pg_database "
                           f"WHERE datname LIKE '{label(bots)}\\_%'").split()
    for name in existing:
        if name != database:
            print(f"dropping the stale {name}", flush=True)
            psql(admin, f'DROP DATABASE "{name}"')
    comment = psql(admin, f"SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = '{database}'")
    figures = json.loads(comment) if comment.startswith("{") else {}
    if "seed" not in figures:
        if database in existing:
            psql(admin, f'DROP DATABASE "{database}"')  # a seed that did not finish
        folder.mkdir(parents=True, exist_ok=True)
        psql(admin, f'CREATE DATABASE "{database}"')
        manage(url, folder, "migrate", "--noinput", "-v0")
        print(f"seeding {database}: {bots:,} bots, {matches:,} matches, {races:,} races", flush=True)
        start = time.monotonic()
        manage(url, folder, "seed_scale", "--bots", str(bots), "--matches", str(matches), "--races", str(races),
               "--seed", str(SEED))
        figures = {"seed": round(time.monotonic() - start, 1)}
        _remember(admin, database, figures)
    else:
        print(f"kept database {database} (the scale seed took {figures['seed'] / 60:.1f} min)", flush=True)
    manage(url, folder, "migrate", "--noinput", "-v0")
    if figures.get("layer") != layer_tag() or not (folder / "planted.json").exists():
        print("adding the integrity layer (sources, sightings, a season, planted cases)", flush=True)
        start = time.monotonic()
        manage(url, folder, "seed_integrity", "--seed", str(SEED), "--planted", str(folder / "planted.json"))
        figures.update(layer=layer_tag(), layer_seconds=round(time.monotonic() - start, 1))
        _remember(admin, database, figures)
    return url, folder, figures


def _remember(admin: str, database: str, figures: dict[str, object]) -> None:
    text = json.dumps(figures).replace("'", "''")
    psql(admin, f"COMMENT ON DATABASE \"{database}\" IS '{text}'")


def measure(bots: int = BOTS, matches: int = MATCHES, races: int = RACES) -> float | None:
    """Seed (when needed), run the probe, print its figures; the cold run's minutes (None when
    PostgreSQL is not to be had). Other sizes than the scale seed's are trials (a database each)."""
    try:
        url, folder, figures = ensure(bots, matches, races)
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"  the scale database could not be made ({exc}): no scale figure")
        return None
    done = subprocess.run([PY, str(ROOT / "bench" / "_integrity_probe.py"), str(folder / "planted.json")], cwd=ROOT,
                          env=env(url, folder), capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the probe failed:\n{done.stderr[-3000:]}")
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"  scale seed: {bots:,} bots, {matches:,} matches (seeded in {figures['seed'] / 60:.1f} min, the integrity "
          f"layer in {figures.get('layer_seconds', 0) / 60:.1f} min); season of {probe['entries']:,} entries, "
          f"{probe['fingerprints']:,} versions with sources; {len(os.sched_getaffinity(0))} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}")
    for name in ("cold", "again"):
        run = probe[name]
        stages = ", ".join(f"{stage} {seconds:.0f} s" for stage, seconds in run["stages"].items())
        print(f"  {'cold' if name == 'cold' else 'incremental'}: the whole report in {run['seconds'] / 60:.1f} min, "
              f"{run['fingerprinted']:,} versions fingerprinted ({stages})")
    print(f"  findings: {probe['kinds']}; planted cases found: "
          + ", ".join(f"{kind} {hit}/{total}" for kind, (hit, total) in probe["recall"].items()))
    return float(probe["cold"]["seconds"]) / 60


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="the integrity report at scale (a trial at other sizes)")
    parser.add_argument("--bots", type=int, default=BOTS)
    parser.add_argument("--matches", type=int, default=MATCHES)
    parser.add_argument("--races", type=int, default=RACES)
    options = parser.parse_args()
    minutes = measure(options.bots, options.matches, options.races)
    print(f"the whole report, cold: {minutes:.1f} min" if minutes is not None else "not measured")
