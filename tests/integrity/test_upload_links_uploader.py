"""Shared accounts tied by identical uploads name the member who uploaded the version, not the
team bot's creator (an organiser's trial: carol uploaded to alice's team bot, another account
uploaded the same archive, and the report tied alice to it)."""

from __future__ import annotations

import pytest

from tests.integrity import samples

pytestmark = pytest.mark.django_db


def test_an_identical_upload_ties_its_uploader_not_the_team_bots_creator(make_user, valid_version):
    from armada_web.bots import services
    from armada_web.integrity.accounts_links import groups
    from armada_web.teams.services import create_team, join_team

    alice, carol, mallory = make_user("alice"), make_user("carol"), make_user("mallory")
    team = create_team(user=alice, name="Nebula")
    join_team(team=team, user=carol, key=team.join_key)
    first = valid_version(alice, "nebula", team=team.pk, code=samples.ORIGINAL)
    services.upload_version(bot=first.bot, user=carol, filename="main.py", data=samples.RENAMED_REORDERED.encode())
    valid_version(mallory, "mstar", code=samples.RENAMED_REORDERED)

    found = [g for g in groups() if "mallory" in g.users]
    assert [sorted(g.users) for g in found] == [["carol", "mallory"]]
    (link,) = [link for g in found for link in g.links if link.kind == "upload"]
    assert "nebula v2 of carol" in link.detail


def test_a_version_with_no_recorded_uploader_counts_as_its_creators(make_user, valid_version):
    from armada_web.bots.models import BotVersion
    from armada_web.integrity.accounts_links import groups

    orig = valid_version(make_user("orig"), "origbot", code=samples.ORIGINAL)
    BotVersion.objects.filter(pk=orig.pk).update(uploaded_by=None)
    valid_version(make_user("copier"), "copybot", code=samples.ORIGINAL)
    assert [sorted(g.users) for g in groups() if "copier" in g.users] == [["copier", "orig"]]
