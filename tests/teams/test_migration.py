"""bots 0003/0004 on a populated database (issue 26): every user gets a personal team, each bot
moves to its owner's, and nothing else changes (ids, names, versions, matches); a bot whose owner
is gone goes to an archived team without members."""

from __future__ import annotations

import pytest

from tests.support.migrations import leaves, migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("bots", "0004_add_version_resources"), ("teams", None)]


def test_the_migration_gives_every_user_a_personal_team_and_keeps_every_id():
    old = migrate(BEFORE)
    User = old.get_model("auth", "User")
    Bot = old.get_model("bots", "Bot")
    BotVersion = old.get_model("bots", "BotVersion")
    users = [User.objects.create(username=name) for name in ("alice", "Alice", "bob", "carol")]
    made = [Bot.objects.create(owner=users[i % 3], game="galaxy", name=f"bot-{i}") for i in range(5)]
    orphan = Bot.objects.create(owner=None, game="galaxy", name="orphan")
    versions = {BotVersion.objects.create(bot=b, number=1, sha256="0" * 64, size=1).pk: b.pk for b in made}
    bots_before = sorted(Bot.objects.values_list("pk", "name", "owner_id"))

    new = migrate(leaves())
    Team = new.get_model("teams", "Team")
    Membership = new.get_model("teams", "Membership")
    NewBot = new.get_model("bots", "Bot")
    assert sorted(NewBot.objects.values_list("pk", "name", "owner_id")) == bots_before
    assert dict(new.get_model("bots", "BotVersion").objects.values_list("pk", "bot_id")) == versions
    personal = {m.user_id: m.team for m in Membership.objects.filter(team__personal=True).select_related("team")}
    assert set(personal) == {u.pk for u in users}
    assert sorted(t.name.lower() for t in personal.values()) == ["alice", "alice-2", "bob", "carol"]
    for bot in NewBot.objects.exclude(pk=orphan.pk):
        assert bot.team_id == personal[bot.owner_id].pk
    orphans = NewBot.objects.get(pk=orphan.pk).team
    assert orphans.archived is not None and not Membership.objects.filter(team=orphans).exists()
    assert Team.objects.count() == 5
