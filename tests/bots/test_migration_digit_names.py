"""bots 0008 on a populated database: bots named with digits alone (allowed before 2026-12-06; they
read as a bot's id in `armada challenge` and the match filter) become NAME-bot, or NAME-ID-bot when
that name is taken in their game; other names stay."""

from __future__ import annotations

import pytest

from tests.support.migrations import before, leaves, migrate

pytestmark = pytest.mark.django_db(transaction=True)



def test_digit_names_are_renamed_to_names_the_rule_takes():
    from armada_web.bots.logic.names import name_problem

    old = migrate(before("bots", "0007_bot_list_order"))
    User, Team, Bot = old.get_model("auth", "User"), old.get_model("teams", "Team"), old.get_model("bots", "Bot")
    owner = User.objects.create(username="alice")
    team = Team.objects.create(name="alice", personal=True)

    def bot(name: str, game: str = "galaxy") -> int:
        return Bot.objects.create(owner=owner, team=team, game=game, name=name).pk

    plain, taken, other_game, kept = bot("012"), bot("2026"), bot("012", "mothership"), bot("a12")
    bot("2026-BOT")  # the renamed name is taken (whatever the case)
    bot(f"2026-{taken}-bot")  # and so is the next one (a review: the migration stopped on the clash)
    new = migrate(leaves())
    names = dict(new.get_model("bots", "Bot").objects.values_list("pk", "name"))
    assert names[plain] == "012-bot" and names[other_game] == "012-bot" and names[kept] == "a12"
    assert names[taken] == f"2026-{taken}-2-bot"
    assert all(name_problem(name) is None for name in names.values())
