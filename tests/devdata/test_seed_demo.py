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


def test_a_demo_bot_left_unvalidated_by_a_platform_failure_is_validated_again(django_capture_on_commit_callbacks):
    """A competitor's trial: every sandbox slot was taken, the demo bots' validations spent their
    retries and ended in error, and every later `make up` said "demo data: already there": the
    ladder stayed empty."""
    from io import StringIO

    from armada_web.bots.models import BotVersion

    call_command("seed_demo", stdout=StringIO())
    failed = BotVersion.objects.filter(bot__name="cyd-random", bot__game="galaxy")
    failed.update(status="error", attempts=3, detail="platform failure after 3 attempts")
    BotVersion.objects.filter(bot__name="ada-greedy").update(status="invalid")  # a bot's own fault: left alone
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=False) as queued:
        call_command("seed_demo", stdout=out)
    assert out.getvalue().strip() == "demo data: 1 validated again after a platform failure"
    assert (failed.get().status, failed.get().attempts, failed.get().detail) == ("pending", 0, "")
    assert len(queued) == 1 and BotVersion.objects.filter(status="invalid").count() == 1
    assert BotVersion.objects.count() == 6


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
