"""The team size limit holds under parallel joins (issue 26): joins sent at once from threads, each
with its own connection and real transactions (PostgreSQL under CI, the SQLite file locally),
counted and checked under the team's row lock."""

from __future__ import annotations

import pytest

from armada_web.teams import queries, services
from tests.accounts.test_limits import parallel, statuses, token_client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_eight_parallel_joins_fill_a_team_of_four_exactly(api, make_user, armada):
    armada(team_max_members=4)
    team = services.create_team(user=make_user("founder"), name="crew")
    clients = [token_client(api, make_user(f"joiner{i}")) for i in range(8)]
    answers = parallel(8, lambda i: clients[i].post(f"/api/teams/{team.pk}/join/", {"key": team.join_key},
                                                    format="json"))
    assert statuses(answers) == {200: 3, 409: 5}
    assert queries.members(team).count() == 4


def test_two_members_removing_each_other_at_once_leave_one(api, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    clients = [token_client(api, alice), token_client(api, bob)]
    targets = ["bob", "alice"]
    answers = parallel(2, lambda i: clients[i].post(f"/api/teams/{team.pk}/remove/", {"username": targets[i]},
                                                    format="json"))
    assert statuses(answers) == {200: 1, 403: 1}
    assert queries.members(team).count() == 1


def test_two_members_renaming_at_once_end_with_one_of_the_names(api, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    clients = [token_client(api, alice), token_client(api, bob)]
    names = ["Red Fleet", "Blue Fleet"]
    answers = parallel(2, lambda i: clients[i].patch(f"/api/teams/{team.pk}/", {"name": names[i]}, format="json"))
    assert statuses(answers) == {200: 2}
    team.refresh_from_db()
    assert team.name in names and {a.json()["name"] for a in answers} <= set(names)


def test_a_rename_racing_a_removal_of_the_renamer_is_refused_or_done_before(api, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    team = services.create_team(user=alice, name="crew")
    services.join_team(user=bob, team=team, key=team.join_key)
    clients = [token_client(api, alice), token_client(api, bob)]
    answers = parallel(2, lambda i: clients[0].post(f"/api/teams/{team.pk}/remove/", {"username": "bob"},
                                                    format="json") if i == 0
                       else clients[1].patch(f"/api/teams/{team.pk}/", {"name": "bobs crew"}, format="json"))
    removed, renamed = answers
    assert removed.status_code == 200 and renamed.status_code in (200, 403)
    team.refresh_from_db()
    assert team.name == ("bobs crew" if renamed.status_code == 200 else "crew")
    assert [m.user for m in queries.members(team)] == [alice]


def test_an_account_deleted_while_a_member_removes_it_neither_deadlocks(make_user):
    """A review: deleting an account ended its memberships, then locked each shared team to archive
    one left empty; a removal locks the team, then ends the membership. Each waited for the other
    and PostgreSQL aborted one ("deadlock detected"). The deletion now locks the teams first."""
    from django.db import connection

    from armada_web.accounts.services import delete_account
    from armada_web.teams.models import Team
    from tests.support.fixtures import PASSWORD
    from tests.support.services import missing
    from tests.support.threads import locked_then

    if connection.vendor != "postgresql":
        missing("row locks need PostgreSQL (set DATABASE_URL; CI does)")
    dave, erin = make_user("dave"), make_user("erin")
    crew = services.create_team(user=dave, name="crew")
    services.join_team(user=erin, team=crew, key=crew.join_key)
    outcomes = locked_then(lambda: delete_account(user=dave, password=PASSWORD),
                           lambda: services.remove_member(user=erin, team=crew, username="dave"),
                           manager=Team.objects, method="select_for_update")
    assert [kind for kind, _value in outcomes] == ["ok", "ok"], outcomes
    assert [m.user for m in queries.members(crew)] == [erin]
