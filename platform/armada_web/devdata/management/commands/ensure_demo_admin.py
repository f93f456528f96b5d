"""Create the demo admin account once and print its credentials (idempotent: a password the
organiser set since, or one a restored database brought, is kept)."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the demo admin account if missing and print its credentials."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="admin")

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        secret_file = settings.DATA_DIR / "demo-admin.txt"
        user = User.objects.filter(username=username).first()
        password = secret_file.read_text().strip() if secret_file.exists() else ""
        if user is not None and not (password and user.check_password(password)):
            # An organiser's trial: every `make up` (an upgrade, a restart, a restore) reset the
            # password they had set and revoked the admin's API tokens. Theirs stays, and the file
            # of a password that no longer works goes.
            secret_file.unlink(missing_ok=True)
            self.stdout.write(f"admin: username={username}, the password you set "
                              f"(another: manage.py changepassword {username})")
            return
        if user is None:
            password = secrets.token_urlsafe(12)
            User.objects.create_superuser(username, f"{username}@localhost", password)
            secret_file.write_text(password + "\n")
            secret_file.chmod(0o600)
        self.stdout.write(f"demo admin: username={username} password={password}")
