"""What competitors see of a season's entry rule: the season page says who may enter and, to a
signed-in competitor, whether their bots may; its count and live standings hold only the bots
that would enter; the API has `entry_rule`, `invited` and `may_enter`; a bot left out at the close
has no placement in the season on its page, an entered one has."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def field(make_user, valid_version):
    """Galaxy bots of ann and ben (ordinary), stella (staff) and carol (a demo account), each with
    rated games, in a season that keeps staff and demo accounts out."""
    from armada_web.accounts.services import mark_demo
    from armada_web.ladder.models import Rating
    from armada_web.seasons import services

    users = {name: make_user(name, is_staff=name == "stella") for name in ("ann", "ben", "stella", "carol")}
    mark_demo(user=users["carol"])
    versions = {name: valid_version(user, f"{name}-bot") for name, user in users.items()}
    for mu, version in zip((30, 28, 26, 24), versions.values(), strict=True):
        Rating.objects.filter(version=version).update(mu=mu, sigma=2.0, games=5)
    season = services.create_season(slug="real", game="galaxy", name="Real", entry_rule="not-staff-or-demo")
    return users, versions, season


def standings_bots(page: str) -> list[str]:
    table = page.split('id="standings"', 1)[1].split("</table>", 1)[0]
    return re.findall(r">([a-z]+-bot)<", table)


def test_the_season_page_says_who_may_enter_and_counts_only_them(client, field):
    users, _versions, _season = field
    page = client.get("/seasons/real/").content.decode()
    assert "Who may enter: <strong>everyone but staff and demo accounts</strong>" in page
    assert "2 bots would enter if it closed now" in page
    assert standings_bots(page) == ["ann-bot", "ben-bot"]  # stella's and carol's are not in the season
    assert "Your bots" not in page  # nobody signed in
    client.force_login(users["carol"])
    page = client.get("/seasons/real/").content.decode()
    assert "Your bots may not enter this season." in page
    client.force_login(users["ann"])
    page = client.get("/seasons/real/").content.decode()
    assert "Your bots may enter." in page and "may not enter" not in page


def test_an_invited_only_season_says_how_many_are_invited(client, field):
    from armada_web.seasons import services

    users, _versions, season = field
    services.set_entry_rule(season=season, entry_rule="invited", invited=["ben"])
    page = client.get("/seasons/real/").content.decode()
    assert "Who may enter: <strong>invited accounts only</strong> (1 invited)." in page
    assert "1 bot would enter" in page and standings_bots(page) == ["ben-bot"]
    client.force_login(users["ann"])
    assert "Your bots may not enter this season." in client.get("/seasons/real/").content.decode()


def test_an_everyone_season_shows_every_bot_as_before(client, field):
    from armada_web.seasons import services

    _users, _versions, season = field
    services.set_entry_rule(season=season, entry_rule="everyone")
    page = client.get("/seasons/real/").content.decode()
    assert "Who may enter: <strong>everyone</strong>." in page and "4 bots would enter" in page
    assert standings_bots(page) == ["ann-bot", "ben-bot", "stella-bot", "carol-bot"]


def test_the_api_says_the_rule_and_whether_the_caller_may_enter(client, api, field):
    users, _versions, season = field
    listing = client.get("/api/seasons/").json()
    assert listing["results"][0]["entry_rule"] == "not-staff-or-demo"
    detail = client.get("/api/seasons/real/").json()
    assert (detail["entry_rule"], detail["entries"], detail["invited"], detail["may_enter"]) == \
        ("not-staff-or-demo", 2, None, None)
    assert api(users["stella"]).get("/api/seasons/real/").json()["may_enter"] is False
    assert api(users["ben"]).get("/api/seasons/real/").json()["may_enter"] is True
    from armada_web.seasons import services
    from armada_web.seasons.models import Season

    Season.objects.filter(pk=season.pk).update(state="upcoming")  # not open yet: its rule still admits ben
    assert api(users["ben"]).get("/api/seasons/real/").json()["may_enter"] is True
    client.force_login(users["ben"])
    assert "Your bots may enter." in client.get("/seasons/real/").content.decode()  # the page and the API agree
    Season.objects.filter(pk=season.pk).update(state="open")
    services.close_season(season=season)  # no bot enters a closed season (an organiser's trial: it said true)
    assert api(users["ann"]).get("/api/seasons/real/").json()["may_enter"] is False
    standings = client.get("/api/seasons/real/standings/").json()
    assert [row["bot"]["name"] for row in standings["results"]] == ["ann-bot", "ben-bot"]
    assert [row["place"] for row in standings["results"]] == [1, 2]


def test_a_bot_left_out_at_the_close_shows_no_placement_in_the_season(client, field):
    from armada_web.seasons import services

    _users, versions, season = field
    services.close_season(season=season)
    left_out = client.get(f"/bots/{versions['carol'].bot_id}/").content.decode()
    assert 'id="placements"' not in left_out and "/seasons/real/" not in left_out
    entered = client.get(f"/bots/{versions['ann'].bot_id}/").content.decode()
    assert 'id="placements"' in entered and "/seasons/real/" in entered
    page = client.get("/seasons/real/").content.decode()
    assert "2 frozen entries" in page and standings_bots(page) == ["ann-bot", "ben-bot"]
    # closed, the finals not begun: its entries, not "Standings of the finals" of 0 games (an organiser's trial)
    assert "<h2>Entries</h2>" in page and "the finals have not begun" in page and "Standings of the finals" not in page
