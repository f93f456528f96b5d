"""Team pages with Django's test client (issue 26): a team's page (members, bots with places,
seasons, history; the join link for members only), the join link's page, the members' POST
buttons, a new team, moving a bot from its page, and each bot's team on the ladder, a match page,
standings and a user's page. Names are escaped everywhere."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from armada_web.bots import moves
from armada_web.bots.models import Bot
from armada_web.seasons.models import Season, Standing
from armada_web.teams import queries, services
from armada_web.teams.models import Team
from tests.pages.data import ratings, recorded_match

pytestmark = pytest.mark.django_db
EVIL_TEAM = "<img src=x onerror=window.__pwned=1>"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def crew(make_user, valid_version):
    """alice and bob in a team with an escaped-looking name holding alice's rated bot "alpha";
    carol alone with "gamma"; a finished match of the two and a finished season with alpha first."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    team = services.create_team(user=alice, name=EVIL_TEAM)
    services.join_team(user=bob, team=team, key=team.join_key)
    alpha, gamma = valid_version(alice, "alpha"), valid_version(carol, "gamma")
    moves.move_bot(bot=alpha.bot, user=alice, team=team.pk)
    match = recorded_match(alpha, gamma, winner=1)
    ratings(alpha, match, [1.0, 4.0])
    ratings(gamma, match, [0.5])
    now = timezone.now()
    season = Season.objects.create(slug="s1", name="Spring", game="galaxy", opens=now - timedelta(days=9),
                                   closes=now - timedelta(days=3), ends=now - timedelta(days=1), state="finished")
    Standing.objects.create(season=season, place=1, bot_ref=alpha.bot_id, bot_name="alpha", owner=alice,
                            version_ref=alpha.pk, version_number=1, score=12.5, games=8,
                            team_ref=team.pk, team_name=team.name, members=["alice", "bob"])
    team.refresh_from_db()
    return {"alice": alice, "bob": bob, "carol": carol, "team": team, "alpha": alpha, "gamma": gamma,
            "match": match, "season": season}


def page(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    html = response.content.decode()
    assert "<img src=x" not in html
    return html


def test_the_team_page_shows_members_bots_places_and_results(client, crew):
    team = crew["team"]
    html = page(client, f"/teams/{team.pk}/")
    assert "&lt;img src=x onerror=window.__pwned=1&gt;" in html
    assert 'href="/users/alice/"' in html and 'href="/users/bob/"' in html
    assert f'href="/bots/{crew["alpha"].bot_id}/">alpha</a>' in html and "gamma" not in html
    assert 'data-label="Place" class="num">#1<' in html and "4.00" in html  # its ladder place and score
    assert 'href="/seasons/s1/">Spring</a>' in html and ">12.50<" in html
    assert team.join_key not in html and "join-link" not in html and "renew-key" not in html


@pytest.mark.parametrize("who, sees", [("alice", True), ("bob", True), ("carol", False), (None, False)])
def test_only_members_see_the_join_key_and_the_buttons(client, crew, who, sees):
    team = crew["team"]
    if who:
        client.force_login(crew[who])
    html = page(client, f"/teams/{team.pk}/")
    assert (team.join_key in html) is sees
    assert (f"teams/<wbr>{team.pk}/<wbr>join/<wbr>?key={team.join_key}" in html) is sees  # (a phone breaks there)
    for button in ('id="renew-key"', 'id="leave"', 'id="archive"', "Remove "):
        assert (button in html) is sees, button


def test_a_personal_team_page_has_no_join_link_and_no_buttons(client, crew):
    client.force_login(crew["carol"])
    personal = services.personal_team(user=crew["carol"])
    html = page(client, f"/teams/{personal.pk}/")
    assert "Personal team" in html and "gamma" in html and 'id="join-link"' not in html and 'id="leave"' not in html
    page(client, "/teams/999999/", 404)


def test_the_members_buttons_call_the_services(client, crew):
    team, alice = crew["team"], crew["alice"]
    client.force_login(alice)
    old = team.join_key
    assert client.get(f"/teams/{team.pk}/key/").status_code == 405  # actions are POST only
    assert client.post(f"/teams/{team.pk}/key/").status_code == 302
    team.refresh_from_db()
    assert team.join_key != old and team.join_key in page(client, f"/teams/{team.pk}/")
    known = team.join_key
    said = client.post(f"/teams/{team.pk}/remove/", {"username": "bob"}, follow=True).content.decode()
    assert "The join key is renewed" in said
    assert [m.user for m in queries.members(team)] == [alice]
    team.refresh_from_db()
    assert team.join_key != known and team.join_key in page(client, f"/teams/{team.pk}/")
    html = page(client, f"/teams/{team.pk}/")
    assert 'id="team-history"' in html and "removed by alice" in html
    client.force_login(crew["bob"])  # removed: the join link he had no longer lets him back in
    assert "not this team&#x27;s join key" in page(client, f"/teams/{team.pk}/join/?key={known}", 403)
    assert client.post(f"/teams/{team.pk}/join/", {"key": known}).status_code == 403
    client.force_login(alice)
    refused = client.post(f"/teams/{team.pk}/leave/", follow=True).content.decode()
    assert "last member" in refused and queries.members(team).count() == 1
    client.post(f"/teams/{team.pk}/archive/")
    client.post(f"/teams/{team.pk}/leave/")
    assert queries.members(team).count() == 0
    client.force_login(crew["carol"])  # a stranger: an archived team still shows its bots and results
    html = page(client, f"/teams/{team.pk}/")
    assert 'id="team-state"' in html and "alpha" in html and "Spring" in html
    assert 'id="restore"' not in html and 'id="team-history"' not in html
    assert "former member" in client.post(f"/teams/{team.pk}/restore/", follow=True).content.decode()
    client.force_login(crew["bob"])  # removed: no way back by restoring
    assert 'id="restore"' not in page(client, f"/teams/{team.pk}/")
    assert "you were removed" in client.post(f"/teams/{team.pk}/restore/", follow=True).content.decode()
    client.force_login(alice)  # a former member who left on her own restores it and is a member again
    assert 'id="restore"' in page(client, f"/teams/{team.pk}/")
    client.post(f"/teams/{team.pk}/restore/")
    team.refresh_from_db()
    assert team.archived is None and [m.user for m in queries.members(team)] == [alice]


def test_the_join_link_page_asks_then_joins(client, crew, armada):
    team, carol = crew["team"], crew["carol"]
    url = f"/teams/{team.pk}/join/?key={team.join_key}"
    assert client.get(url)["Location"].startswith("/accounts/login/?next=")
    client.force_login(carol)
    html = page(client, url)
    assert 'id="join-form"' in html and f'value="{team.join_key}"' in html
    for key in ("not-the-key", "clé", ""):  # any text: a 403 with the reason, never a 500
        wrong = client.post(f"/teams/{team.pk}/join/", {"key": key})
        assert wrong.status_code == 403 and "join key" in wrong.content.decode()
        # said before the click too: the link's page shows the refusal instead of a button
        asked = client.get(f"/teams/{team.pk}/join/", {"key": key})
        assert asked.status_code == 403 and 'id="join-refused"' in asked.content.decode()
        assert 'id="join-form"' not in asked.content.decode()
    armada(team_max_members=2)
    full = client.post(f"/teams/{team.pk}/join/", {"key": team.join_key})
    assert full.status_code == 409 and "full" in full.content.decode()
    asked = client.get(url)
    said = asked.content.decode()
    assert asked.status_code == 409 and "full" in said and 'id="join-form"' not in said
    armada(team_max_members=4)
    assert client.post(f"/teams/{team.pk}/join/", {"key": team.join_key})["Location"] == f"/teams/{team.pk}/"
    assert carol in [m.user for m in queries.members(team)]
    member = page(client, url)
    assert 'id="already"' in member and "Join " not in member.split("<h1>", 1)[1].split("</h1>", 1)[0]  # (a crawl)


def test_a_new_team_from_its_page(client, crew):
    client.force_login(crew["carol"])
    assert "Create a team" in page(client, "/users/carol/")
    made = client.post("/teams/new/", {"name": "Blue Fleet"})
    team = Team.objects.get(name="Blue Fleet")
    assert made["Location"] == f"/teams/{team.pk}/"
    for name, status, message in (("x", 400, "3 to 40"), ("blue fleet", 409, "a member of the team"), ("tab\there", 400,
                                                                                        "control")):
        answer = client.post("/teams/new/", {"name": name})
        assert answer.status_code == status and message in answer.content.decode(), name
    assert client.get("/teams/new/").status_code == 200
    client.logout()
    assert client.get("/teams/new/").status_code == 302



def test_the_new_team_form_says_what_the_api_says(client, crew):
    """A competitor's trial: an empty or a 41-character name showed Django's "This field is
    required." and "Ensure this value has at most 40 characters (it has 41).", where the API and
    the CLI say the rule; and a name with stacked accent marks was taken (D-S-31). The page
    shows the service's words, keeps what was typed, and makes nothing."""
    client.force_login(crew["carol"])
    before = Team.objects.count()
    zalgo = "z\u0336\u0336\u0336\u0336a\u0336l\u0336go"
    for name, said in (("", "a team needs a name"),
                       ("x" * 41, "the team&#x27;s name must be 3 to 40 characters long (it has 41)"),
                       ("x" * 161, "the team&#x27;s name must be 3 to 40 characters long (it has more than 160)"),
                       ("abc" + "\u030d" * 35, "the team&#x27;s name has stacked accent marks (35 on one letter"),
                       (zalgo, "the team&#x27;s name has stacked accent marks (4 on one letter")):
        answer = client.post("/teams/new/", {"name": name})
        html = answer.content.decode()
        assert answer.status_code == 400 and said in html, (name, html[-3000:])
        assert "This field is required" not in html and "Ensure this value" not in html
        assert f'value="{name}"' in html or not name  # what was typed stays in the field
    assert Team.objects.count() == before
    for name in ("Café", "Équipe Rouge"):
        made = client.post("/teams/new/", {"name": name})
        assert made["Location"] == f"/teams/{Team.objects.get(name=name).pk}/"

def test_a_bot_moves_from_its_page(client, crew, valid_version):
    alice, team = crew["alice"], crew["team"]
    solo = valid_version(alice, "solo")
    client.force_login(alice)
    html = page(client, f"/bots/{solo.bot_id}/")
    assert 'id="move"' in html and f'<option value="{team.pk}">' in html
    assert 'id="move"' not in page(client, f"/bots/{crew['alpha'].bot_id}/")  # a team's bot stays with it
    moved = client.post(f"/bots/{solo.bot_id}/move/", {"team": team.pk, "confirm": "yes"})
    assert moved["Location"] == f"/bots/{solo.bot_id}/"
    assert Bot.objects.get(pk=solo.bot_id).team_id == team.pk
    assert f'href="/teams/{team.pk}/" id="bot-team"' in page(client, f"/bots/{solo.bot_id}/")
    client.force_login(crew["bob"])
    refused = client.post(f"/bots/{solo.bot_id}/move/", {"team": 999999, "confirm": "yes"},
                          follow=True).content.decode()
    assert "no one member alone" in refused or "no team" in refused
    client.force_login(crew["carol"])
    assert client.post(f"/bots/{solo.bot_id}/move/", {"team": team.pk, "confirm": "yes"}).status_code == 404
    assert Bot.objects.get(pk=solo.bot_id).team_id == team.pk


def test_lists_name_each_bots_team(client, crew):
    team = crew["team"]
    link = f'<a href="/teams/{team.pk}/" class="team">&lt;img'
    carol = '<a href="/users/carol/" class="username" title="carol">carol</a>'
    ladder = page(client, "/ladder/galaxy/")
    assert link in ladder and carol in ladder  # a personal team: its user
    match = page(client, f"/matches/{crew['match'].pk}/")
    assert link in match and carol in match
    assert link in page(client, "/seasons/s1/")
    user = page(client, "/users/alice/")
    assert f'href="/teams/{team.pk}/"' in user and "(personal team)" in user
    client.force_login(crew["alice"])
    assert f'href="/teams/{team.pk}/"' in page(client, "/my/bots/")


def test_a_new_bot_can_be_made_for_a_team(client, crew):
    team, bob = crew["team"], crew["bob"]
    client.force_login(bob)
    form = page(client, f"/bots/new/?team={team.pk}")
    assert f'<option value="{team.pk}" selected>' in form and "bob (you alone)" in form
    made = client.post("/bots/new/", {"name": "crewbot", "game": "galaxy", "team": team.pk})
    assert made.status_code == 302 and Bot.objects.get(name="crewbot").team_id == team.pk
    refused = client.post("/bots/new/", {"name": "nope", "game": "galaxy", "team": 999999}).content.decode()
    assert "Select a valid choice" in refused and not Bot.objects.filter(name="nope").exists()
    client.force_login(crew["carol"])  # alone: nothing to choose, the personal team it is
    assert 'type="hidden" name="team"' in page(client, "/bots/new/")
    assert client.post("/bots/new/", {"name": "mine", "game": "galaxy"}).status_code == 302
    assert Bot.objects.get(name="mine").team.personal


def test_the_profile_lists_the_users_teams_now(client, crew):
    """Teams on the profile: the personal one and the shared one, linked; not a team left."""
    bob = crew["bob"]
    client.force_login(bob)
    html = page(client, "/accounts/profile/")
    teams = html[html.index('id="profile-teams"'):html.index("</ul>", html.index('id="profile-teams"'))]
    assert f'href="/teams/{crew["team"].pk}/"' in teams and "&lt;img src=x" in teams
    assert "your personal team" in teams
    services.leave_team(user=bob, team=crew["team"])
    html = page(client, "/accounts/profile/")
    teams = html[html.index('id="profile-teams"'):html.index("</ul>", html.index('id="profile-teams"'))]
    assert f'href="/teams/{crew["team"].pk}/"' not in teams and "your personal team" in teams


def test_a_member_renames_the_team_from_its_page(client, crew):
    team, bob = crew["team"], crew["bob"]
    client.force_login(crew["carol"])
    assert 'id="rename"' not in client.get(f"/teams/{team.pk}/").content.decode()
    refused = client.post(f"/teams/{team.pk}/rename/", {"name": "pirates"}, follow=True).content.decode()
    assert "only a member" in refused
    client.force_login(bob)
    page = client.get(f"/teams/{team.pk}/").content.decode()
    assert 'id="rename"' in page and 'value="&lt;img src=x' in page
    clash = client.post(f"/teams/{team.pk}/rename/", {"name": "CAROL"}, follow=True).content.decode()
    assert "taken" in clash
    # a final trial: the refused name was gone from the field (the old one stood there again)
    assert 'id="rename-name" value="CAROL"' in clash
    again = client.get(f"/teams/{team.pk}/").content.decode()  # shown once, then the team's name again
    assert 'id="rename-name" value="CAROL"' not in again and 'value="&lt;img src=x' in again
    typed = client.post(f"/teams/{team.pk}/rename/", {"name": "<b>x</b>\u0007"}, follow=True).content.decode()
    assert 'value="&lt;b&gt;x&lt;/b&gt;' in typed  # escaped like every page's user text
    assert client.post(f"/teams/{team.pk}/rename/", {"name": "Blue Fleet"})["Location"] == f"/teams/{team.pk}/"
    team.refresh_from_db()
    assert team.name == "Blue Fleet"
    assert "Blue Fleet" in client.get(f"/bots/{crew['alpha'].bot_id}/").content.decode()


def test_a_list_of_members_ends_where_its_words_do(client, crew):
    # "Members now: alice, bob ." once: the included link's file ended with a newline, which the
    # page kept as a space before the full stop (and in every other sentence naming a user or team).
    team, carol = crew["team"], crew["carol"]
    client.force_login(carol)
    html = page(client, f"/teams/{team.pk}/join/?key={team.join_key}")
    assert '>alice</a>, <a href="/users/bob/" class="username" title="bob">bob</a>.</p>' in html


def test_removing_leaving_and_archiving_ask_first(client, crew):
    """Removing a member, leaving and archiving were one click (a new user's trial): each button
    opens a page saying what happens, whose button POSTs; asking changes nothing."""
    team, alice = crew["team"], crew["alice"]
    client.force_login(alice)
    html = page(client, f"/teams/{team.pk}/")
    assert f'<form method="get" action="/teams/{team.pk}/remove/"' in html  # (with the member's name)
    for path in ("leave", "archive"):  # links: their addresses end without a lone "?"
        assert f'href="/teams/{team.pk}/{path}/">' in html, path
    for path in ("remove", "leave", "archive"):
        assert f'<form method="post" action="/teams/{team.pk}/{path}/"' not in html, path
    asked = page(client, f"/teams/{team.pk}/remove/?username=BOB")
    assert "Remove bob from &lt;img" in asked and "The join key is renewed" in asked
    assert '<input type="hidden" name="username" value="bob">' in asked
    assert "Leave the team &lt;img" in page(client, f"/teams/{team.pk}/leave/")
    assert "Its bots stop playing now" in page(client, f"/teams/{team.pk}/archive/")
    team.refresh_from_db()
    assert queries.members(team).count() == 2 and team.archived is None
    nobody = client.get(f"/teams/{team.pk}/remove/?username=carol", follow=True).content.decode()
    assert "&#x27;carol&#x27; is not a member of this team" in nobody
    # asking runs the removal's own rules (teams.services.member_to_remove): what the click would refuse
    yourself = client.get(f"/teams/{team.pk}/remove/?username=ALICE", follow=True).content.decode()
    assert "to take yourself out of the team, leave it" in yourself and 'id="confirm-form"' not in yourself
    # leaving and archiving too (teams.services.leave_refusal, archive_refusal): the last member of a
    # playing team, a personal team, a team archived already are told so, with nothing to confirm
    solo = services.create_team(user=alice, name="Solo")
    last = client.get(f"/teams/{solo.pk}/leave/", follow=True).content.decode()
    assert "you are this team&#x27;s last member" in last and 'id="confirm-form"' not in last
    personal = services.personal_team(user=alice)
    for path in ("leave", "archive"):
        own = client.get(f"/teams/{personal.pk}/{path}/", follow=True).content.decode()
        assert "a personal team has its one member" in own and 'id="confirm-form"' not in own, path
    services.archive_team(user=alice, team=solo)
    again = client.get(f"/teams/{solo.pk}/archive/", follow=True).content.decode()
    assert "archived already" in again and 'id="confirm-form"' not in again
    assert 'id="confirm-form"' in page(client, f"/teams/{solo.pk}/leave/")  # (archived: its last member may go)
    client.force_login(crew["carol"])  # not a member: refused, back on the team's page
    refused = client.get(f"/teams/{team.pk}/archive/", follow=True).content.decode()
    assert "only a member of this team" in refused and 'id="confirm-form"' not in refused
    gone = client.get(f"/teams/{team.pk}/leave/", follow=True).content.decode()
    assert "you are not a member of this team" in gone and 'id="confirm-form"' not in gone


def test_a_team_shows_the_results_it_earned_not_those_of_a_bot_moved_in_since(client, crew, valid_version):
    """An organiser's trial: a bot placed 4th for its owner's personal team, then moved into a shared
    team; the shared team's page listed that result and the personal team's lost it."""
    from armada_web.teams.models import Team

    alice, team, season = crew["alice"], crew["team"], crew["season"]
    solo = valid_version(alice, "solo")
    personal = Team.objects.get(personal=True, memberships__user=alice)
    Standing.objects.create(season=season, place=2, bot_ref=solo.bot_id, bot_name="solo", owner=alice,
                            version_ref=solo.pk, version_number=1, score=3.5, games=8,
                            team_ref=personal.pk, team_name=personal.name, members=["alice"])
    moves.move_bot(bot=solo.bot, user=alice, team=team.pk)
    shared = page(client, f"/teams/{team.pk}/")
    results = shared[shared.index('id="team-results"'):]
    assert ">alpha<" in results and ">solo<" not in results[:results.index("</table>")]
    own = page(client, f"/teams/{personal.pk}/")
    assert 'id="team-results"' in own and ">solo<" in own[own.index('id="team-results"'):]
    solo.bot.delete()  # a bot deleted since (by staff: a shared team's member may not, D-S-37): named, no link to a 404
    own = page(client, f"/teams/{personal.pk}/")
    assert ">solo<" in own and f'href="/bots/{solo.bot_id}/"' not in own
