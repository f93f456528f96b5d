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


def test_seed_demo_marks_its_users_so_a_season_can_keep_their_bots_out(make_user, valid_version):
    from django.contrib.auth.models import User

    from armada_web.accounts.queries import demo_accounts
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.seasons import services
    from armada_web.seasons.models import Entry

    ada = User.objects.create_user("demo-ada", password="x")  # made before the mark existed: marked on the next run
    call_command("seed_demo")
    call_command("seed_demo")
    assert set(demo_accounts().values_list("username", flat=True)) == {"demo-ada", "demo-bea", "demo-cyd"}
    assert ada.groups.count() == 1
    BotVersion.objects.update(status="valid")
    for bot in Bot.objects.all():
        refresh_active(bot=bot)
    valid_version(make_user("pilot"), "real-bot")
    everyone = services.create_season(slug="open-to-all", game="galaxy", name="All")
    kept = services.create_season(slug="real", game="galaxy", name="Real", entry_rule="not-staff-or-demo")
    services.close_season(season=everyone)
    services.close_season(season=kept)
    assert Entry.objects.filter(season=everyone).count() == 4
    assert list(Entry.objects.filter(season=kept).values_list("bot_name", flat=True)) == ["real-bot"]
