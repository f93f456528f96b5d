"""Choosing the active version and retiring decide under the bot's lock (a review): a pin racing a
validation's `refresh_active`, and two retirements at once, end as if one came after the other."""

from __future__ import annotations

import pytest
from django.db import transaction

from armada_web.bots import services
from armada_web.bots.activation import refresh_active
from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.signals import active_version_changed


def test_two_retirements_of_one_bot_tell_the_apps_above_once(valid_version, make_user):
    bot = valid_version(make_user("ann"), "Ann").bot
    stale = Bot.objects.get(pk=bot.pk)  # what a second request loaded before the first retired it
    told: list[int] = []

    def receiver(sender, bot, **kwargs):
        told.append(bot.pk)

    active_version_changed.connect(receiver)
    try:
        assert services.retire_bot(bot=bot, user=bot.owner).retired is not None
        assert services.retire(bot=stale) is False
    finally:
        active_version_changed.disconnect(receiver)
    assert told == [bot.pk]


@pytest.mark.django_db(transaction=True)
def test_a_pin_racing_a_validation_stays_a_pin(make_user):
    """v3 turns valid (and `refresh_active` makes it active) while its owner pins v2: the pin waits
    for the bot's lock and then sees v3, so v2 stays pinned. Before, it read the newest valid version
    first (v2), found v2 no pin, and saved over v3: an old version playing unpinned."""
    from django.db import connection

    from tests.support.services import missing
    from tests.support.threads import locked_then

    if connection.vendor != "postgresql":
        missing("row locks need PostgreSQL (set DATABASE_URL; CI does)")
    owner = make_user("ann")
    bot = services.create_bot(user=owner, name="Ann", game="galaxy")
    versions = [services.upload_version(bot=bot, user=owner, filename="main.py", data=f"print({n})\n".encode())
                for n in (1, 2, 3)]
    BotVersion.objects.filter(pk__in=[versions[0].pk, versions[1].pk]).update(status="valid")
    refresh_active(bot=bot)

    def validation_ends() -> None:
        with transaction.atomic():
            Bot.objects.select_for_update().get(pk=bot.pk)
            BotVersion.objects.filter(pk=versions[2].pk).update(status="valid")  # the pause: the bot is locked
            refresh_active(bot=bot)

    outcomes = locked_then(validation_ends,
                           lambda: services.set_active(bot=Bot.objects.get(pk=bot.pk), user=owner,
                                                       version_id=versions[1].pk),
                           manager=BotVersion.objects, method="filter")
    assert [kind for kind, _value in outcomes] == ["ok", "ok"], outcomes
    bot.refresh_from_db()
    assert (bot.active_version_id, bot.pinned) == (versions[1].pk, True)


@pytest.mark.django_db(transaction=True)
def test_a_bots_detail_is_read_at_one_moment(make_user, monkeypatch):
    """A validation commits (v2 valid and active) after the API read the bot and before it read its
    versions: the answer is the bot as it stood before (v2 pending), not v2 valid beside the old
    active v1 (an API trial saw that mix)."""
    import threading

    from django.db import connection
    from rest_framework.test import APIClient

    from armada_web.bots import queries
    from tests.support.services import missing

    if connection.vendor != "postgresql":
        missing("snapshots need PostgreSQL (set DATABASE_URL; CI does)")
    owner = make_user("ann")
    bot = services.create_bot(user=owner, name="Ann", game="galaxy")
    v1, v2 = (services.upload_version(bot=bot, user=owner, filename="main.py", data=f"print({n})\n".encode())
              for n in (1, 2))
    BotVersion.objects.filter(pk=v1.pk).update(status="valid")
    refresh_active(bot=bot)
    original = queries.versions_of

    def validation_ends() -> None:
        try:
            with transaction.atomic():
                BotVersion.objects.filter(pk=v2.pk).update(status="valid")
                refresh_active(bot=Bot.objects.get(pk=bot.pk))
        finally:
            connection.close()

    def versions_after_a_commit(of: Bot):
        other = threading.Thread(target=validation_ends)
        other.start()
        other.join()
        return original(of)

    monkeypatch.setattr(queries, "versions_of", versions_after_a_commit)
    shown = APIClient().get(f"/api/bots/{bot.pk}/").json()
    statuses = {v["id"]: v["status"] for v in shown["versions"]}
    assert (shown["active_version"], statuses) == (v1.pk, {v1.pk: "valid", v2.pk: "pending"})
    monkeypatch.setattr(queries, "versions_of", original)
    shown = APIClient().get(f"/api/bots/{bot.pk}/").json()
    assert (shown["active_version"], shown["versions"][0]["status"]) == (v2.pk, "valid")
