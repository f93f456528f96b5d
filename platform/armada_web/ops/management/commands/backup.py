"""`manage.py backup DIR`: the database and every stored file of a stopped deployment into DIR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from armada_web.ops.backups import backup
from armada_web.web.errors import DomainError


class Command(BaseCommand):
    help = "Back up the database and the storage (archives, replays, logs) into a new folder (docs/deploy.md)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", type=Path, help="a new or empty folder")
        parser.add_argument("--force", action="store_true", help="even though matches or validations look running")

    def handle(self, *args: Any, folder: Path, force: bool, **options: Any) -> None:
        try:
            summary = backup(folder=folder.resolve(), force=force)
        except (DomainError, OSError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"backed up {summary}")
