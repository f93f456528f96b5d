"""Who the private parts of a page say they are for: the match page's log and re-run and the
version page's log and validation game are seen by the bot's team and staff (docs/site.md,
"Privacy"), so a member of a shared team must not read "only you and staff see it" about a bot
the other members see as well."""

from __future__ import annotations

import pytest

from armada_web.bots.access import private_audience
from armada_web.bots.moves import move_bot
from armada_web.teams.services import create_team, join_team
from tests.pages.test_pages import PASSWORD, body

pytestmark = pytest.mark.django_db


def test_a_shared_teams_members_read_that_their_team_sees_it(client, arena, make_user):
    alpha = arena.alpha.bot  # alice's, seat 1 of arena.match
    match_url, version_url = f"/matches/{arena.match.pk}/", f"/bots/{alpha.pk}/versions/{arena.alpha.number}/"
    client.login(username="alice", password=PASSWORD)
    for url in (match_url, version_url):  # alone in her personal team: "you"
        assert "only you and staff see" in body(client, url)

    team = create_team(user=arena.alice, name="Red Fleet")
    carol = make_user("carol")
    join_team(user=carol, team=team, key=team.join_key)
    move_bot(bot=alpha, user=arena.alice, team=team.pk)
    alpha.refresh_from_db()
    for user in (arena.alice, carol):
        assert private_audience(bot=alpha, user=user) == "your team and staff"
        client.login(username=user.username, password=PASSWORD)
        match_html, version_html = body(client, match_url), body(client, version_url)
        assert "only you and staff" not in match_html and "only you and staff" not in version_html
        assert "seat 1; only your team and staff see it" in match_html  # the log
        assert "only your team and staff see this" in match_html  # the re-run
        assert "(stderr, only your team and staff see it)" in version_html

    make_user("root", is_staff=True)
    client.login(username="root", password=PASSWORD)  # staff: outside the team
    assert "seat 1; only its team and staff see it" in body(client, match_url)
    assert private_audience(bot=arena.beta.bot, user=carol) == "its team and staff"
