"""`manage.py revalidate_active [--dry-run]`: after an engine version change, validate the active
versions made with another engine again and recompute the Mothership league."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from armada_web.ladder.revalidate import current_engine, revalidate_active, stale_versions


class Command(BaseCommand):
    help = ("Re-queue validation of the active versions whose engine version differs from the current one, "
            "and rebuild the Mothership league with the current engine.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="only list the versions it would re-queue")

    def handle(self, *args: Any, **options: Any) -> None:
        stale = list(stale_versions())
        for v in stale:
            self.stdout.write(f"{v.bot.game} {v.bot.name} v{v.number}: validated with engine "
                              f"{v.engine_version or '?'}, current {current_engine(v.bot.game)}")
        if options["dry_run"]:
            self.stdout.write(f"would re-queue {len(stale)} versions")
            return
        counts = revalidate_active()
        self.stdout.write(f"re-queued {counts['queued']} versions for validation; "
                          f"league rebuilt with {counts['league_races']} races")
