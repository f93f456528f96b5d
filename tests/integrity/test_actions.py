"""Staff's actions on the report (integrity.actions): a finding marked, a version or an account
disqualified (its entries leave the standings, which are recomputed; the account sees the
decision on the season's page), every action in the audit log once, even when two staff click
at the same time (two threads, each its own connection and transaction)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from tests.support.fixtures import PASSWORD
from tests.support.seasons_helpers import queued
from tests.support.threads import at_once

pytestmark = pytest.mark.django_db


@pytest.fixture
def five(make_user, valid_version):
    """Five Galaxy bots of five owners, playing."""
    return [valid_version(make_user(f"user{n}"), f"bot{n}") for n in range(5)]


@pytest.fixture
def staff(make_user):
    return make_user("judge", is_staff=True)


def finished(slug: str = "s1") -> Any:
    from armada_web.seasons.services import close_season, create_season, finish_season

    season = create_season(slug=slug, game="galaxy", name="Spring")
    close_season(season=season)
    return finish_season(season=season)


def a_finding(season: Any = None) -> Any:
    from armada_web.integrity import findings

    return findings.record(kind="accounts", key="users:user0,user1", season=season, subjects=["user0", "user1"],
                           score=0.9, reason="2 accounts tied by e-mail", evidence={"links": []})


def standings(season: Any) -> list[tuple[int, str]]:
    from armada_web.seasons.models import Standing

    return list(Standing.objects.filter(season=season).order_by("place").values_list("place", "bot_name"))


def test_marking_a_finding_is_logged_once_and_refused_to_non_staff(staff, make_user):
    from armada_web.integrity.actions import set_status
    from armada_web.integrity.models import AuditEntry
    from armada_web.web.errors import Forbidden, Invalid, NotFound

    finding = a_finding()
    assert set_status(finding_id=finding.pk, status="dismissed", by=staff, note="  a  household ") is True
    assert set_status(finding_id=finding.pk, status="dismissed", by=staff) is False  # nothing to do
    (entry,) = AuditEntry.objects.all()
    assert (entry.by_name, entry.action, entry.finding_id, entry.note) == ("judge", "dismissed", finding.pk,
                                                                          "a household")
    assert entry.subject == "accounts user0, user1"
    with pytest.raises(Forbidden):
        set_status(finding_id=finding.pk, status="confirmed", by=make_user("mallory"))
    with pytest.raises(Invalid):
        set_status(finding_id=finding.pk, status="guilty", by=staff)
    with pytest.raises(NotFound):
        set_status(finding_id=finding.pk + 1, status="confirmed", by=staff)
    finding.refresh_from_db()
    assert finding.status == "dismissed" and AuditEntry.objects.count() == 1


def test_disqualifying_a_version_recomputes_the_final_standings_once(five, staff):
    from armada_web.integrity.actions import disqualify
    from armada_web.integrity.models import AuditEntry
    from armada_web.seasons.models import Entry

    season = finished()
    before = standings(season)
    assert len(before) == 5
    out = five[2]
    decision, new = disqualify(season=season, by=staff, reason="copied bot0", version_id=out.pk)
    assert new and decision.entries == 1 and decision.username == "user2" and decision.version_label == "bot2 v1"
    after = standings(season)
    assert after == [(place, name) for place, (_, name) in enumerate(
        [row for row in before if row[1] != "bot2"], start=1)]  # the places close up
    assert not Entry.objects.filter(season=season, version_ref=out.pk).exists()
    again, new = disqualify(season=season, by=staff, reason="a second click", version_id=out.pk)
    assert not new and again.pk == decision.pk and again.reason == "copied bot0"
    assert standings(season) == after
    (entry,) = AuditEntry.objects.filter(action="disqualified")
    assert entry.by_name == "judge" and "bot2 v1" in entry.subject and entry.note == "copied bot0"


def test_disqualifying_an_account_and_refusals(five, staff, make_user):
    from armada_web.integrity.actions import disqualify, set_status
    from armada_web.seasons.services import create_season
    from armada_web.web.errors import Conflict, Invalid, NotFound

    season = finished()
    finding = a_finding(season)
    decision, _ = disqualify(season=season, by=staff, reason="one person, two accounts", username="user1",
                             finding_id=finding.pk)
    assert decision.target == "account" and decision.finding_id == finding.pk
    assert [name for _, name in standings(season)] == ["bot0", "bot2", "bot3", "bot4"]
    with pytest.raises(Invalid, match="say why"):
        disqualify(season=season, by=staff, reason=" ", username="user3")
    with pytest.raises(Invalid):
        disqualify(season=season, by=staff, reason="x", username="user3", version_id=five[3].pk)
    with pytest.raises(NotFound):
        disqualify(season=season, by=staff, reason="x", username=make_user("late").username)
    with pytest.raises(NotFound):
        disqualify(season=season, by=staff, reason="x", version_id=five[1].pk)  # left with its account
    disqualify(season=season, by=staff, reason="a copy", version_id=five[2].pk)
    with pytest.raises(NotFound, match="user2 has no entry left in season s1: what it entered was disqualified"):
        disqualify(season=season, by=staff, reason="x", username="user2")  # (an organiser's trial)
    with pytest.raises(NotFound, match="the team user1 has no entry left in season s1: what it entered was "
                                       "disqualified already"):
        disqualify(season=season, by=staff, reason="x", team="user1")  # its account's went (an organiser's trial)
    with pytest.raises(Invalid, match="a finding is open, dismissed, confirmed: choose one"):  # not "not None"
        set_status(finding_id=finding.pk, status=None, by=staff)
    open_season = create_season(slug="s2", game="galaxy", name="Summer")
    for target in ({"username": "user3"}, {"version_id": five[3].pk}, {"team": "user3"}):  # each way, one answer
        with pytest.raises(Conflict, match="season s2 is open: its entries are made at its close"):
            disqualify(season=open_season, by=staff, reason="x", **target)
    assert len(standings(season)) == 3
    from armada_web.seasons.queries import season as season_of
    with pytest.raises(NotFound, match=r"^no season chosen: choose one$"):  # a form without one: not "no season "
        season_of("")


def test_a_disqualified_entry_leaves_the_finals_and_its_queued_games_are_cancelled(five, staff):
    from armada_web.integrity.actions import disqualify
    from armada_web.matches.models import Match
    from armada_web.seasons import periodic
    from armada_web.seasons.services import close_season, create_season, start_finals

    season = create_season(slug="s1", game="galaxy", name="Spring")
    start_finals(season=close_season(season=season))
    periodic.tick(workers=20)
    waiting = queued("finals")
    assert waiting
    seats = {m.pk: set(m.participants.values_list("version_id", flat=True)) for m in waiting}
    out = next(iter(seats[waiting[0].pk]))
    disqualify(season=season, by=staff, reason="thrown games", version_id=out)
    cancelled = {m.pk for m in Match.objects.filter(pk__in=list(seats), status="void")}
    assert cancelled == {pk for pk, versions in seats.items() if out in versions}
    assert season.entries.count() == 4


def test_a_disqualification_mid_finals_recounts_the_matches_and_the_finals_play_out(five, staff):
    from django.test import Client

    from armada_web.integrity.actions import disqualify
    from armada_web.seasons import finals, periodic
    from armada_web.seasons.models import Standing
    from armada_web.seasons.services import close_season, create_season, start_finals
    from tests.support.seasons_helpers import record_result

    season = create_season(slug="s1", game="galaxy", name="Spring")
    start_finals(season=close_season(season=season), stages=2, games=2)
    periodic.tick(workers=20)
    season.refresh_from_db()
    assert season.matches_total == 10  # 5 entries: 5 games a round, one round a stage
    first, *_ = queued("finals")
    # its match page names and links the season (an organiser's trial: it said "finals" alone)
    assert '<a href="/seasons/s1/" id="played-for">finals of Spring</a>' in \
        Client().get(f"/matches/{first.pk}/").content.decode()
    record_result(first, 1)  # one game played, then one of its two entries is disqualified
    out = first.participants.get(seat=1).version_id
    disqualify(season=season, by=staff, reason="thrown games", version_id=out)
    season.refresh_from_db()
    # Its 2 games of the round (the one played too) went with it: 3 kept, and a second stage of 4.
    assert season.matches_total == 3 + 4 and finals.matches_done(season) == 0
    # the page and the API say why the count went down (an organiser saw 33 of 1350 become 29 of 883)
    assert season.withdrawn == 1
    page = Client().get("/seasons/s1/").content.decode()
    assert ('1 entry was withdrawn (disqualified) after the close: the finals were planned again without it, '
            "and its games, played or not, left both counts.") in page
    assert Client().get("/api/seasons/s1/").json()["finals"]["withdrawn"] == 1
    for _ in range(10):  # play every match the finals send until they are over
        periodic.tick(workers=20)
        waiting = queued("finals")
        if not waiting:
            break
        for match in waiting:
            record_result(match, 1)
    season.refresh_from_db()
    assert finals.all_done(season) and finals.matches_done(season) == season.matches_total == 7
    assert season.state == "finished"
    assert sorted(Standing.objects.filter(season=season).values_list("place", flat=True)) == [1, 2, 3, 4]


def test_the_account_sees_the_decision_on_the_season_page_and_in_the_api_and_nobody_else_does(five, staff, client):
    from armada_web.integrity.actions import disqualify

    season = finished()
    disqualify(season=season, by=staff, reason="copied <b>bot0</b>", version_id=five[2].pk)
    disqualify(season=season, by=staff, reason="one person", username="user4")
    anonymous = client.get("/seasons/s1/").content.decode()
    assert "copied" not in anonymous and "Disqualified" not in anonymous and "bot2" not in anonymous
    assert client.get("/api/seasons/s1/").json()["disqualifications"] == []
    client.login(username="user3", password=PASSWORD)
    assert "copied" not in client.get("/seasons/s1/").content.decode()
    assert client.get("/api/seasons/s1/").json()["disqualifications"] == []
    client.login(username="user2", password=PASSWORD)
    page = client.get("/seasons/s1/").content.decode()
    assert "bot2 v1 of user2 was disqualified" in page and "copied &lt;b&gt;bot0&lt;/b&gt;" in page
    (own,) = client.get("/api/seasons/s1/").json()["disqualifications"]
    assert {k: own[k] for k in ("target", "subject", "username", "reason", "entries")} == {
        "target": "version", "subject": "bot2 v1", "username": "user2", "reason": "copied <b>bot0</b>", "entries": 1}
    client.login(username="judge", password=PASSWORD)
    assert "copied &lt;b&gt;bot0&lt;/b&gt;" in client.get("/seasons/s1/").content.decode()
    seen = client.get("/api/seasons/s1/").json()["disqualifications"]
    assert [(d["target"], d["subject"]) for d in seen] == [("account", "user4"), ("version", "bot2 v1")]


@pytest.mark.django_db(transaction=True)
def test_two_staff_clicking_at_once_count_once(five, staff, make_user):
    from armada_web.integrity.actions import disqualify, set_status
    from armada_web.integrity.models import AuditEntry, Disqualification

    other = make_user("judge2", is_staff=True)
    season = finished()
    finding = a_finding(season)
    marked = at_once([lambda who=who: set_status(finding_id=finding.pk, status="confirmed", by=who)
                        for who in (staff, other, staff)])
    assert sorted(marked) == [False, False, True]
    assert AuditEntry.objects.filter(action="confirmed").count() == 1
    results = at_once([lambda who=who: disqualify(season=season, by=who, reason="copy", version_id=five[0].pk)
                         for who in (staff, other, staff)])
    assert sorted(new for _, new in results) == [False, False, True]
    assert len({decision.pk for decision, _ in results}) == 1 and Disqualification.objects.count() == 1
    assert AuditEntry.objects.filter(action="disqualified").count() == 1
    assert [name for _, name in standings(season)] == ["bot1", "bot2", "bot3", "bot4"]


def test_disqualifying_a_team_removes_its_entries_and_its_members_see_why(five, staff, make_user, client):
    """A team's entries leave the standings (found by the name it entered under or its name now);
    its members, present and past, see the decision on the season page; nobody else does."""
    from armada.botspec import starter_file
    from armada_web.bots import services as bots
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.integrity.actions import disqualify
    from armada_web.integrity.models import AuditEntry
    from armada_web.teams import services as teams
    from armada_web.teams.models import Membership
    from armada_web.web.errors import NotFound

    ann, ben = make_user("ann"), make_user("ben")
    crew = teams.create_team(user=ann, name="Crew")
    teams.join_team(user=ben, team=crew, key=crew.join_key)
    for member, name in ((ann, "crew-a"), (ben, "crew-b")):
        bot = bots.create_bot(user=member, name=name, game="galaxy", team=crew.pk)
        version = bots.upload_version(bot=bot, user=member, filename="main.py",
                                      data=starter_file("greedy", "galaxy").read_bytes())
        BotVersion.objects.filter(pk=version.pk).update(status="valid")
        refresh_active(bot=bot)
    season = finished()
    assert len(standings(season)) == 7
    Membership.objects.filter(team=crew, user=ben).update(left=timezone.now())  # ben left after the close
    teams.rename_team(user=ann, team=crew, name="Renamed crew")
    with pytest.raises(NotFound, match="no team named nobody"):
        disqualify(season=season, by=staff, reason="x", team="nobody")
    decision, new = disqualify(season=season, by=staff, reason="one <i>shared</i> bot", team="crew")  # as entered
    assert new and (decision.target, decision.team_name, decision.entries) == ("team", "Crew", 2)
    assert sorted(name for _, name in standings(season)) == ["bot0", "bot1", "bot2", "bot3", "bot4"]
    again, new = disqualify(season=season, by=staff, reason="twice", team="renamed CREW")  # by its name now
    assert not new and again.pk == decision.pk
    assert AuditEntry.objects.filter(action="disqualified").count() == 1
    for username, sees in (("ann", True), ("ben", True), ("user0", False)):
        client.login(username=username, password=PASSWORD)
        page = client.get("/seasons/s1/").content.decode()
        assert ("Every entry of the team Crew was disqualified" in page) is sees, username
        assert ("one &lt;i&gt;shared&lt;/i&gt; bot" in page) is sees
    client.login(username="judge", password=PASSWORD)
    report = client.get("/staff/integrity/?season=s1").content.decode()
    assert "team Crew" in report and "one &lt;i&gt;shared&lt;/i&gt; bot" in report


def test_a_team_bot_s_disqualified_version_is_seen_by_every_member(five, staff, make_user, client,
                                                                  valid_version):
    """A code review: a version's decision named only the member who made the bot, so the team's
    other members never read why the team's entry left the standings."""
    from armada_web.integrity.actions import disqualify
    from armada_web.teams import services as teams

    ann, ben = make_user("ann"), make_user("ben")
    crew = teams.create_team(user=ann, name="Crew")
    teams.join_team(user=ben, team=crew, key=crew.join_key)
    version = valid_version(ann, "crew-a", team=crew.pk)
    season = finished()
    decision, _new = disqualify(season=season, by=staff, reason="a copy of bot0", version_id=version.pk)
    assert decision.team_ref == crew.pk
    for username, sees in (("ann", True), ("ben", True), ("user0", False)):
        client.login(username=username, password=PASSWORD)
        assert ("a copy of bot0" in client.get("/seasons/s1/").content.decode()) is sees, username
