"""`manage.py ensure_superuser`: the staff account from DJANGO_SUPERUSER_USERNAME, _EMAIL and
_PASSWORD (the variables of Django's `createsuperuser --noinput`), made when it is missing.

Idempotent: an existing account of that name is not an error and is left as it is (its password
too: change it with `manage.py changepassword`); an ordinary account of that name is never made
staff. Without DJANGO_SUPERUSER_USERNAME it does nothing. Compose's one-shot `migrate` service
runs it on every start (docs/deploy.md, "One host with compose").
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from armada_web.accounts.services import ensure_superuser
from armada_web.web.errors import Invalid


class Command(BaseCommand):
    help = "Create the staff account of DJANGO_SUPERUSER_USERNAME/_EMAIL/_PASSWORD unless it exists."

    def handle(self, *args: Any, **options: Any) -> None:
        username = os.environ.get("DJANGO_SUPERUSER_USERNAME", "").strip()
        if not username:
            self.stdout.write("no DJANGO_SUPERUSER_USERNAME: no staff account to make")
            return
        try:
            done = ensure_superuser(username=username, email=os.environ.get("DJANGO_SUPERUSER_EMAIL", ""),
                                    password=os.environ.get("DJANGO_SUPERUSER_PASSWORD", ""))
        except Invalid as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write({
            "created": f"staff account {username!r}: created",
            "exists": f"staff account {username!r}: exists, unchanged",
            "not staff": f"staff account {username!r}: an ordinary account has this name; left as it is, not made "
                         "staff (choose another DJANGO_SUPERUSER_USERNAME)",
        }[done])
