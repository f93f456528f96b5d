"""`manage.py prune_storage [--apply]`: report (and with --apply delete) expired and orphaned files,
and the sign-in records (accounts.sightings) older than ARMADA_SIGHTINGS_KEEP_DAYS."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from armada_web.accounts import sightings
from armada_web.matches.retention import plan, prune

WHY = {"unranked-expired": "unranked matches past ARMADA_UNRANKED_KEEP_DAYS",
       "ranked-bot-gone": "ranked matches whose bots are gone",
       "orphan": "orphans (no row names them)"}


class Command(BaseCommand):
    help = ("Report the stored replays and logs that expired (unranked matches past ARMADA_UNRANKED_KEEP_DAYS, "
            "ranked ones whose bots are gone) and orphaned files, and the sign-in records (client addresses) older "
            "than ARMADA_SIGHTINGS_KEEP_DAYS; --apply deletes them.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--apply", action="store_true", help="delete them (default: only report)")

    def handle(self, *args: Any, **options: Any) -> None:
        todo = plan()
        for why, (files, size) in sorted(todo.summary().items()):
            self.stdout.write(f"{WHY.get(why, why)}: {files} files, {size} bytes")
        if options["verbosity"] >= 2:
            for item in todo.items:
                self.stdout.write(f"  {item.why}  {item.size:>10}  {item.name}")
        verb = "deleting" if options["apply"] else "would delete"
        self.stdout.write(f"{verb} {len(todo.items)} files, {todo.bytes} bytes")
        if options["apply"]:
            files, size = prune(todo=todo)
            self.stdout.write(f"deleted {files} files, {size} bytes")
        old = sightings.expired().count()
        self.stdout.write(f"sign-in records older than ARMADA_SIGHTINGS_KEEP_DAYS: {old}")
        if options["apply"] and old:
            self.stdout.write(f"deleted {sightings.prune()} sign-in records")
