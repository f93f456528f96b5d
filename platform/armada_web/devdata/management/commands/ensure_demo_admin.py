"""Create the demo admin account once and print its credentials (idempotent)."""

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
        if user is None or not password or not user.check_password(password):
            password = secrets.token_urlsafe(12)
            if user is None:
                user = User.objects.create_superuser(username, f"{username}@localhost", password)
            else:
                user.set_password(password)
                user.is_staff = user.is_superuser = True
                user.save()
            secret_file.write_text(password + "\n")
            secret_file.chmod(0o600)
        self.stdout.write(f"demo admin: username={username} password={password}")
