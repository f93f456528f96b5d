"""DELETE /api/bots/{id}/?if_empty=true: what `armada submit` sends to take back a bot it made for an
upload the site refused; a bot that has a version by then (another upload reached it) is kept."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_a_bot_with_a_version_is_kept_and_an_empty_one_deleted(make_user, valid_version, api):
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.bots.services import create_bot

    owner = make_user("ann")
    client = api(owner)
    full = valid_version(owner, "full-bot").bot
    answer = client.delete(f"/api/bots/{full.pk}/?if_empty=true")
    assert answer.status_code == 409 and "has 1 version now: it was not deleted" in answer.json()["detail"]
    assert Bot.objects.filter(pk=full.pk).exists() and BotVersion.objects.filter(bot=full).count() == 1
    answer = client.delete(f"/api/bots/{full.pk}/?if_empty=-58800")  # the schema's boolean only (the fuzzer's case)
    assert answer.status_code == 400 and "must be true or false" in str(answer.json())
    empty = create_bot(user=owner, name="empty-bot", game="galaxy")
    assert client.delete(f"/api/bots/{empty.pk}/?if_empty=true").status_code == 204
    assert not Bot.objects.filter(pk=empty.pk).exists()
    assert client.delete(f"/api/bots/{full.pk}/").status_code == 204  # without it: the bot and its versions
    assert not Bot.objects.filter(pk=full.pk).exists()
