"""A season's team rules hold under parallel requests (issue 26): joins sent at once from threads,
each with its own connection and real transactions (PostgreSQL under CI, the SQLite file locally),
checked under the team's, the person's and the seasons' row locks (seasons.team_rules)."""

from __future__ import annotations

import pytest

from armada_web.seasons import services as season_services
from armada_web.teams import queries, services
from tests.accounts.test_limits import parallel, statuses, token_client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def entered_team(user, name):
    """A new team of `user` with a playing Galaxy bot."""
    from armada.botspec import starter_file
    from armada_web.bots import services as bots
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion

    team = services.create_team(user=user, name=name)
    bot = bots.create_bot(user=user, name=f"{name}-bot", game="galaxy", team=team.pk)
    version = bots.upload_version(bot=bot, user=user, filename="main.py",
                                  data=starter_file("greedy", "galaxy").read_bytes())
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    refresh_active(bot=bot)
    return team


def test_one_person_joining_two_entered_teams_at_once_gets_one(api, make_user):
    season_services.create_season(slug="s1", game="galaxy", name="Spring", one_team_per_person=True)
    teams = [entered_team(make_user("ann"), "red"), entered_team(make_user("bob"), "blue")]
    client = token_client(api, make_user("cyd"))
    answers = parallel(2, lambda i: client.post(f"/api/teams/{teams[i].pk}/join/", {"key": teams[i].join_key},
                                                format="json"))
    assert statuses(answers) == {200: 1, 409: 1}
    assert sorted(len(queries.members(t)) for t in teams) == [1, 2]


def test_six_parallel_joins_fill_a_seasons_team_of_three_exactly(api, make_user, armada):
    armada(team_max_members=4)
    season_services.create_season(slug="s1", game="galaxy", name="Spring", team_max_members=3)
    team = entered_team(make_user("ann"), "red")
    clients = [token_client(api, make_user(f"joiner{i}")) for i in range(6)]
    answers = parallel(6, lambda i: clients[i].post(f"/api/teams/{team.pk}/join/", {"key": team.join_key},
                                                    format="json"))
    assert statuses(answers) == {200: 2, 409: 4}
    assert queries.members(team).count() == 3


def test_joins_racing_the_close_are_in_the_frozen_entry_or_refused(api, make_user):
    from armada_web.seasons.models import Entry

    season = season_services.create_season(slug="s1", game="galaxy", name="Spring")
    team = entered_team(make_user("ann"), "red")
    clients = [token_client(api, make_user(f"joiner{i}")) for i in range(3)]

    def act(i: int):
        if i == 3:
            return season_services.close_season(season=season)
        return clients[i].post(f"/api/teams/{team.pk}/join/", {"key": team.join_key}, format="json")

    answers = parallel(4, act)
    assert not any(isinstance(a, BaseException) for a in answers), answers
    joined = {r.status_code for r in answers[:3]}
    assert joined <= {200, 409}
    entry = Entry.objects.get(season=season, team=team)
    assert entry.members == [m.user.username for m in queries.members(team)]  # nobody slipped in after
