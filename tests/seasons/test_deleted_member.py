"""A deleted account leaves the results of its teams (an organiser's trial: the standings still
named od_a, and a new account took the name, so the results seemed that account's)."""

from __future__ import annotations

import pytest

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


def test_a_deleted_member_is_no_longer_named_and_the_name_is_free(make_user, client, valid_version):
    from armada_web.accounts.services import delete_account
    from armada_web.seasons.models import Entry, Standing
    from armada_web.teams import services as teams
    from armada_web.teams.models import Team
    from tests.integrity.test_actions import finished

    ann, ben = make_user("ann"), make_user("ben")
    crew = teams.create_team(user=ann, name="Crew")
    teams.join_team(user=ben, team=crew, key=crew.join_key)
    for name, team in (("crew-bot", crew.pk), ("solo-bot", None)):
        valid_version(ann, name, team=team)
    season = finished()
    rows = {s.bot_name: (s.team_name, s.members) for s in Standing.objects.filter(season=season)}
    assert rows == {"crew-bot": ("Crew", ["ann", "ben"]), "solo-bot": ("ann", ["ann"])}
    delete_account(user=ann, password=PASSWORD)
    rows = {s.bot_name: (s.team_name, s.members) for s in Standing.objects.filter(season=season)}
    assert rows == {"crew-bot": ("Crew", ["(deleted user)", "ben"]),
                    "solo-bot": ("(deleted user)", ["(deleted user)"])}
    entries = list(Entry.objects.filter(season=season, team_ref__in=[crew.pk]))
    assert entries and all("ann" not in e.members for e in entries)
    gone = Team.objects.get(personal=True, name__startswith="(deleted user ")
    assert gone.name == f"(deleted user {gone.pk})"
    again = make_user("ann")  # someone else takes the name: their own personal team is "ann"
    assert Team.objects.get(personal=True, memberships__user=again).name == "ann"
    page = client.get(f"/seasons/{season.slug}/").content.decode()
    assert "(deleted user)" in page and ">ann<" not in page and "(ann" not in page
