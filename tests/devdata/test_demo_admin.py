"""`ensure_demo_admin`, which every `make up` runs: the admin account is made once with a password
shown in make up's output; a password set since (or one a restored database brought) is kept (an
organiser's trial: each restart, upgrade or restore reset it and revoked the admin's API tokens)."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def said(**options: str) -> str:
    out = StringIO()
    call_command("ensure_demo_admin", stdout=out, **options)
    return out.getvalue()


def test_the_admin_is_made_once_and_a_password_set_since_is_kept(settings, tmp_path):
    from armada_web.accounts.models import ApiToken
    from armada_web.accounts.services import create_token

    settings.DATA_DIR = tmp_path
    first = re.fullmatch(r"demo admin: username=admin password=(\S+)\n", said())
    assert first is not None
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.check_password(first.group(1))
    assert said() == first.group(0)  # the same, shown again
    admin.set_password("Organiser-chose-this-1")
    admin.save()
    create_token(user=admin, name="ops")
    again = said()
    assert "the password you set" in again and "password=" not in again
    assert not (tmp_path / "demo-admin.txt").exists()  # (it held a password that no longer works)
    admin.refresh_from_db()
    assert admin.check_password("Organiser-chose-this-1") and ApiToken.objects.filter(user=admin).count() == 1
    assert "the password you set" in said()
    assert User.objects.get(username="admin").check_password("Organiser-chose-this-1")
