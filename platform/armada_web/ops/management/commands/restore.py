"""`manage.py restore DIR`: put a backup (manage.py backup) into this deployment's database and storage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from armada_web.ops.backups import restore
from armada_web.web.errors import DomainError


class Command(BaseCommand):
    help = ("Restore a backup into an empty deployment (its database migrated as the backup's, then to this "
            "code's migrations); docs/deploy.md.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("folder", type=Path, help="a folder written by manage.py backup")
        parser.add_argument("--replace", action="store_true",
                            help="delete everything this deployment's database and storage hold first")
        parser.add_argument("--force", action="store_true", help="even though matches or validations look running")

    def handle(self, *args: Any, folder: Path, replace: bool, force: bool, **options: Any) -> None:
        try:
            summary = restore(folder=folder.resolve(), replace=replace, force=force)
        except (DomainError, OSError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"restored {summary}")
