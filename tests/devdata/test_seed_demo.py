"""`manage.py seed_demo`: three demo users own a starter of each game, uploaded like any upload; idempotent."""

from __future__ import annotations

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_seed_demo_is_idempotent():
    from django.contrib.auth.models import User

    from armada_web.bots.models import Bot, BotVersion

    call_command("seed_demo")
    call_command("seed_demo")
    assert User.objects.filter(username__startswith="demo-").count() == 3
    assert Bot.objects.filter(game="galaxy").count() == 3 and Bot.objects.filter(game="mothership").count() == 3
    assert BotVersion.objects.count() == 6 and set(BotVersion.objects.values_list("status", flat=True)) == {"pending"}
    assert len({bot.owner_id for bot in Bot.objects.filter(game="galaxy")}) == 3
    assert not any(user.has_usable_password() for user in User.objects.filter(username__startswith="demo-"))
