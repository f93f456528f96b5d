"""The Django side of bench/integrity.py's scale target, run in the scale database (its DATABASE_URL
in the environment): every fingerprint and finding deleted, then the whole report for the season
(`integrity.checks.run_checks`, what `manage.py integrity --season scale` runs) timed cold (every
version fingerprinted) and again (incremental: nothing new), each check timed on its own; the
findings compared with the planted cases. Prints one JSON line.

    DATABASE_URL=... .venv/bin/python bench/_integrity_probe.py PLANTED.json
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def timed(stages: dict[str, float], name: str, body: Any) -> Any:
    """`body` wrapped to add its seconds to `stages[name]`."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return body(*args, **kwargs)
        finally:
            stages[name] = stages.get(name, 0.0) + time.perf_counter() - start
    return wrapper


def run(season: Any) -> dict[str, Any]:
    """One whole report, each stage timed; how many versions it fingerprinted."""
    from armada_web.integrity import checks, copies, fingerprints
    from armada_web.integrity.models import Fingerprint

    stages: dict[str, float] = {}
    saved = (copies.fingerprint_missing, checks.find_copies, checks.shared_accounts, checks.thrown_games)
    copies.fingerprint_missing = timed(stages, "fingerprints", fingerprints.fingerprint_missing)
    checks.find_copies = timed(stages, "copies (with fingerprints)", checks.find_copies)
    checks.shared_accounts = timed(stages, "accounts", checks.shared_accounts)
    checks.thrown_games = timed(stages, "collusion", checks.thrown_games)
    before = Fingerprint.objects.count()
    start = time.perf_counter()
    try:
        found = checks.run_checks(season=season)
    finally:
        copies.fingerprint_missing, checks.find_copies, checks.shared_accounts, checks.thrown_games = saved
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "stages": stages, "fingerprinted": Fingerprint.objects.count() - before,
            "findings": found}


def main() -> None:
    sys.path[:0] = [str(ROOT / "sdk"), str(ROOT / "platform")]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")
    import django

    django.setup()
    from armada_web.integrity.models import Finding, Fingerprint
    from armada_web.seasons.models import Season

    planted = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    season = Season.objects.get(slug="scale")
    Finding.objects.all().delete()
    Fingerprint.objects.all().delete()
    cold = run(season)
    again = run(season)
    found = again.pop("findings")
    cold.pop("findings")
    kinds: dict[str, int] = {}
    for f in found:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    copied = {tuple(sorted(v["bot_id"] for v in f.evidence["versions"])) for f in found if f.kind == "copy"}
    groups = [set(f.subjects) for f in found if f.kind == "accounts"]
    thrown = {tuple(f.evidence["bots"]) for f in found if f.kind == "collusion"}
    recall = {
        "copies": [sum(tuple(sorted(p)) in copied for p in planted["copies"]), len(planted["copies"])],
        "second accounts": [sum(any(set(t) <= g for g in groups) for t in planted["twins"]),
                            len(planted["twins"])],  # (the layer calls a person's two accounts twins)
        "thrown": [sum(tuple(p) in thrown for p in planted["thrown"]), len(planted["thrown"])],
    }
    print(json.dumps({"cold": cold, "again": again, "kinds": kinds, "recall": recall,
                      "entries": season.entries.count(), "fingerprints": Fingerprint.objects.count()}))


if __name__ == "__main__":
    main()
