"""ladder 0007 on a populated database: a version waiting for its first game whose bot has a
rated predecessor is marked `placed` and set at its placement start (a recompute had left it
fresh), so the ladder lists it where its predecessor was; nothing else moves."""

from __future__ import annotations

import pytest

from tests.support.migrations import before, leaves, migrate

pytestmark = pytest.mark.django_db(transaction=True)



def test_waiting_versions_with_a_rated_predecessor_are_placed_at_its_start():
    from armada_web.ladder.logic.ratings import MU, SIGMA, Skill, placement_start

    old = migrate(before("ladder", "0006_rating_due_seed_order"))
    User, Team = old.get_model("auth", "User"), old.get_model("teams", "Team")
    Bot, BotVersion, Rating = old.get_model("bots", "Bot"), old.get_model("bots", "BotVersion"), old.get_model(
        "ladder", "Rating")
    owner = User.objects.create(username="alice")
    team = Team.objects.create(name="alice", personal=True)

    def version(bot, number, mu, sigma, games):
        made = BotVersion.objects.create(bot=bot, number=number, sha256=f"{number}" * 64, size=1)
        Rating.objects.create(version=made, game="galaxy", mu=mu, sigma=sigma, games=games, playing=games == 0)
        return made.pk

    alpha = Bot.objects.create(owner=owner, team=team, game="galaxy", name="alpha")
    bravo = Bot.objects.create(owner=owner, team=team, game="galaxy", name="bravo")
    rated = version(alpha, 1, 31.0, 2.0, 40)
    waiting = version(alpha, 2, MU, SIGMA, 0)  # reset to fresh by a recompute
    new_bot = version(bravo, 1, MU, SIGMA, 0)  # no predecessor: waits for its first game

    new = migrate(leaves())
    rows = {r.version_id: r for r in new.get_model("ladder", "Rating").objects.all()}
    start = placement_start(Skill(31.0, 2.0))
    assert rows[waiting].placed and (rows[waiting].mu, rows[waiting].sigma) == (
        pytest.approx(start.mu), pytest.approx(start.sigma))
    assert not rows[new_bot].placed and (rows[new_bot].mu, rows[new_bot].sigma) == (MU, SIGMA)
    assert not rows[rated].placed and (rows[rated].mu, rows[rated].sigma, rows[rated].games) == (31.0, 2.0, 40)
