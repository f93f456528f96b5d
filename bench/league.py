"""The Mothership Down league in the database: adding one race to a league of 1,000.

A fresh data folder and SQLite database (migrated), 1,000 valid Mothership versions with
stored random orders (rows written directly) and their table built by the platform's own
`sync_league`; then a 1,001st version becomes valid the way validation records it (status,
active version, `update_league` on commit) and the whole table update is timed. Prints the time
and the in-engine battles it took (the new race against each of the 1,000; MD-10 head-to-head
tie-breaks, if any, are counted apart), and ends with `target league-add-seconds: S <= 5 ok`.

Run: .venv/bin/python bench/league.py
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RACES = 1000
BOUND_SECONDS = 5.0


def orders_dict(orders: Any) -> dict[str, Any]:
    """RaceOrders as a bot answers them (the JSON stored in BotVersion.orders)."""
    return {"mothership": {"defence": orders.mothership},
            "fighters": [{"attack": f.attack, "defence": f.defence, "pattern": list(f.pattern)}
                         for f in orders.fighters]}


def main() -> int:
    folder = Path(tempfile.mkdtemp(prefix="armada-bench-league-"))
    os.environ.update({"ARMADA_DATA_DIR": str(folder), "ARMADA_SQLITE_PATH": str(folder / "armada.sqlite3"),
                       "DATABASE_URL": "", "DEBUG": "false", "SECRET_KEY": secrets.token_urlsafe(50),
                       "ARMADA_HTTPS": "false", "DJANGO_SETTINGS_MODULE": "armada_web.settings"})
    sys.path.append(str(ROOT / "platform"))
    try:
        return run()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run() -> int:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import transaction

    from armada.games.mothership import random_orders
    from armada.games.rng import Rng
    from armada_web.bots import activation
    from armada_web.bots.models import Bot, BotVersion, VersionStatus
    from armada_web.ladder import league
    from armada_web.ladder.models import LeagueEntry
    from armada_web.teams.services import personal_teams

    call_command("migrate", "--noinput", verbosity=0)
    rng = Rng(2024)
    owners = User.objects.bulk_create([User(username=f"owner{i}") for i in range(RACES + 1)])
    teams = personal_teams(users=[(u.pk, u.username) for u in owners])
    bots = Bot.objects.bulk_create([Bot(owner=owners[i], team_id=teams[owners[i].pk], game="mothership",
                                        name=f"race-{i}")
                                    for i in range(RACES + 1)])
    versions = BotVersion.objects.bulk_create([
        BotVersion(bot=bot, number=1, sha256=f"{i:064x}", size=100, files=1,
                   status=VersionStatus.VALID if i < RACES else VersionStatus.VALIDATING,
                   orders=orders_dict(random_orders(rng)), race_name=bot.name, attempts=1)
        for i, bot in enumerate(bots)])
    for bot, version in zip(bots[:RACES], versions[:RACES], strict=True):
        bot.active_version = version
    Bot.objects.bulk_update(bots[:RACES], ["active_version"], batch_size=500)

    start = time.perf_counter()
    built = league.sync_league()
    build_seconds = time.perf_counter() - start
    assert built["races"] == RACES == LeagueEntry.objects.count(), built
    print(f"league of {RACES} races built by sync_league in {build_seconds:.2f} s "
          f"({RACES * (RACES - 1) // 2:,} battles)")

    battles = {"n": 0}
    fight = league.fight

    def counted(a: Any, b: Any) -> tuple[int, int, int]:
        battles["n"] += 1
        return fight(a, b)

    tie_breaks = {"n": 0}
    original_order = league.table_order

    def counted_order(keys: Any, submitted: Any, head_to_head: Any) -> list[int]:
        def h2h(i: int, j: int) -> tuple[int, int]:
            tie_breaks["n"] += 1
            return head_to_head(i, j)  # type: ignore[no-any-return]
        return original_order(keys, submitted, h2h)

    league.fight = counted  # type: ignore[assignment]
    league.table_order = counted_order  # type: ignore[assignment]
    new = versions[RACES]
    start = time.perf_counter()
    with transaction.atomic():  # what validation records for a valid Mothership version; on commit the
        # ladder's receiver of active_version_changed syncs the league
        BotVersion.objects.filter(pk=new.pk, status=VersionStatus.VALIDATING).update(status=VersionStatus.VALID)
        activation.refresh_active(bot=new.bot)
    seconds = time.perf_counter() - start
    league.fight, league.table_order = fight, original_order  # type: ignore[assignment]

    rows = LeagueEntry.objects.count()
    entry = LeagueEntry.objects.get(version=new)
    assert rows == RACES + 1 and entry.played == RACES, (rows, entry.played)
    new_race_battles = battles["n"] - tie_breaks["n"]
    print(f"adding race {RACES + 1}: whole table update in the database in {seconds:.3f} s; "
          f"in-engine battles: {new_race_battles} (new race vs each of {RACES}), "
          f"head-to-head tie-breaks: {tie_breaks['n']}; its position: {entry.position} of {rows}")
    assert new_race_battles == RACES, new_race_battles
    print()
    verdict = "ok" if seconds <= BOUND_SECONDS else "short"
    print(f"target league-add-seconds: {seconds:.2f} <= {BOUND_SECONDS:g} {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
