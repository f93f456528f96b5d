"""Private events invite teams or users (issue 26): the owner invites teams by id or name and users
by username (their personal team); a member of an invited team sees the private event and enters a
bot of that team without the invite code (one bot per team); the invite code still works as
before; the table names each entry's team; bad invitations are refused with their status and
change nothing."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def team_bot():
    from armada.botspec import starter_file
    from armada_web.bots import services
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion

    def make(member, team, name):
        bot = services.create_bot(user=member, name=name, game="galaxy", team=team.pk)
        version = services.upload_version(bot=bot, user=member, filename="main.py",
                                          data=starter_file("greedy", "galaxy").read_bytes())
        BotVersion.objects.filter(pk=version.pk).update(status="valid")
        refresh_active(bot=bot)
        return bot

    return make


@pytest.fixture
def setting(make_user, api, team_bot, valid_version):
    """olga owns a private event; crew (ann, bob) has a bot; cyd has a bot of her own; eve has one too."""
    from armada_web.teams import services

    olga, ann, bob, cyd, eve = (make_user(n) for n in ("olga", "ann", "bob", "cyd", "eve"))
    crew = services.create_team(user=ann, name="crew")
    services.join_team(user=bob, team=crew, key=crew.join_key)
    made = api(olga).post("/api/events/", {"name": "Club", "game": "galaxy", "format": "round_robin"},
                          format="json").json()
    return {"owner": api(olga), "ann": api(ann), "bob": api(bob), "cyd": api(cyd), "eve": api(eve),
            "crew": crew, "crew_bot": team_bot(ann, crew, "crew-bot"), "cyd_bot": valid_version(cyd, "cyd-bot").bot,
            "eve_bot": valid_version(eve, "eve-bot").bot, "slug": made["slug"], "invite": made["invite"]}


def test_invited_teams_and_users_see_the_event_and_enter_without_the_code(setting, client):
    s, slug = setting, setting["slug"]
    assert s["bob"].get(f"/api/events/{slug}/").status_code == 404  # private, not invited yet
    made = s["owner"].post(f"/api/events/{slug}/invitations/", {"teams": [s["crew"].pk], "users": ["cyd"]},
                           format="json")
    assert made.status_code == 201, made.json()
    assert sorted((t["name"], t["personal"]) for t in made.json()) == [("crew", False), ("cyd", True)]
    assert s["bob"].get(f"/api/events/{slug}/").status_code == 200
    assert sorted(t["name"] for t in s["bob"].get(f"/api/events/{slug}/").json()["invited"]) == ["crew", "cyd"]
    assert slug in [e["slug"] for e in s["bob"].get("/api/events/").json()["results"]]
    entered = s["bob"].post(f"/api/events/{slug}/entries/", {"bot": s["crew_bot"].pk}, format="json")
    assert entered.status_code == 201, entered.json()
    assert entered.json()["team"] == {"id": s["crew"].pk, "name": "crew"} and entered.json()["owner"] == "bob"
    again = s["ann"].post(f"/api/events/{slug}/entries/", {"bot": s["crew_bot"].pk}, format="json")
    assert again.status_code == 409 and "one bot per team" in again.json()["detail"]
    assert s["cyd"].post(f"/api/events/{slug}/entries/", {"bot": s["cyd_bot"].pk}, format="json").status_code == 201
    outsider = s["eve"].post(f"/api/events/{slug}/entries/", {"bot": s["eve_bot"].pk}, format="json")
    assert outsider.status_code == 404  # not invited, no code: the private event does not exist for her
    with_code = s["eve"].post(f"/api/events/{slug}/entries/", {"bot": s["eve_bot"].pk, "invite": s["invite"]},
                              format="json")
    assert with_code.status_code == 201  # the old contract: the invite code still works
    table = s["owner"].get(f"/api/events/{slug}/").json()["table"]
    assert sorted((r["bot"]["name"], r["team"]["name"]) for r in table) == [
        ("crew-bot", "crew"), ("cyd-bot", "cyd"), ("eve-bot", "eve")]
    client.force_login(s["bob"].user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert "<th>Team</th>" in page and "<td>crew</td>" in page
    assert "Invited teams</strong>: cyd <span class=\"muted\">(a user)</span>, crew." in page


def test_an_invited_member_may_enter_only_the_invited_teams_bot_without_the_code(setting, valid_version):
    s, slug = setting, setting["slug"]
    s["owner"].post(f"/api/events/{slug}/invitations/", {"team_names": ["CREW"]}, format="json")
    own = valid_version(s["bob"].user, "bob-own-bot").bot  # bob's personal team is not invited
    answer = s["bob"].post(f"/api/events/{slug}/entries/", {"bot": own.pk}, format="json")
    assert answer.status_code == 403 and "invited team" in answer.json()["detail"]
    # someone else's bot: that it is not theirs, not that a code would help (an organiser's trial)
    answer = s["bob"].post(f"/api/events/{slug}/entries/", {"bot": s["cyd_bot"].pk}, format="json")
    assert answer.status_code == 403 and answer.json()["detail"].startswith("not your bot")
    from armada_web.events.models import Event

    invite = Event.objects.get(slug=slug).invite
    answer = s["eve"].post(f"/api/events/{slug}/entries/", {"bot": s["cyd_bot"].pk, "invite": invite}, format="json")
    assert answer.status_code == 403 and answer.json()["detail"].startswith("not your bot")
    answer = s["eve"].post(f"/api/events/{slug}/entries/", {"bot": s["cyd_bot"].pk}, format="json")
    assert answer.status_code == 404  # a stranger without the code: no such event, whatever the bot
    # the invited teams, as the event's page and API show them to whoever holds the invite link
    assert s["eve"].get(f"/api/events/{slug}/invitations/").status_code == 404
    listed = s["eve"].get(f"/api/events/{slug}/invitations/?invite={invite}")
    assert listed.status_code == 200 and [t["name"] for t in listed.json()] == ["crew"]
    assert s["eve"].get(f"/api/events/{slug}/invitations/?invite=wrong").status_code == 404


@pytest.mark.parametrize(("who", "body", "status", "message"), [
    ("ann", {"users": ["cyd"]}, 404, "no such event"),  # private: a stranger is not told it exists
    ("owner", {}, 400, "name the teams"),
    ("owner", {"teams": ["x"]}, 400, "give each team by its id"),
    ("owner", {"teams": [999999]}, 404, "no team with id 999999"),
    ("owner", {"users": ["nobody"]}, 404, "no account named nobody"),
    ("owner", {"team_names": ["ghosts"]}, 404, "no team named ghosts"),
    ("owner", {"users": ["u"] * 101}, 400, "invite at most 100"),
])
def test_bad_invitations_are_refused_and_change_nothing(setting, who, body, status, message):
    from armada_web.events.models import EventInvitation

    answer = setting[who].post(f"/api/events/{setting['slug']}/invitations/", body, format="json")
    assert answer.status_code == status and message in answer.json()["detail"], answer.json()
    assert not EventInvitation.objects.exists()


def test_only_the_owner_invites_to_a_public_event(setting, api):
    s = setting
    public = s["owner"].post("/api/events/", {"name": "Open", "game": "galaxy", "format": "round_robin",
                                              "public": True}, format="json").json()
    answer = s["ann"].post(f"/api/events/{public['slug']}/invitations/", {"users": ["ann"]}, format="json")
    assert answer.status_code == 403 and "only the event's owner" in answer.json()["detail"]


def test_an_archived_team_or_a_started_event_takes_no_invitation(setting):
    from armada_web.events.models import EventInvitation
    from armada_web.teams import services

    s, slug = setting, setting["slug"]
    services.archive_team(user=s["ann"].user, team=s["crew"])
    answer = s["owner"].post(f"/api/events/{slug}/invitations/", {"teams": [s["crew"].pk]}, format="json")
    assert answer.status_code == 409 and "archived" in answer.json()["detail"]
    s["owner"].post(f"/api/events/{slug}/entries/", {"bot": s["cyd_bot"].pk, "invite": s["invite"]}, format="json")
    for client, bot in ((s["cyd"], s["cyd_bot"]), (s["eve"], s["eve_bot"])):
        client.post(f"/api/events/{slug}/entries/", {"bot": bot.pk, "invite": s["invite"]}, format="json")
    assert s["owner"].post(f"/api/events/{slug}/start/").status_code == 200
    late = s["owner"].post(f"/api/events/{slug}/invitations/", {"users": ["cyd"]}, format="json")
    assert late.status_code == 409 and "running" in late.json()["detail"]
    assert not EventInvitation.objects.exists()


def test_inviting_twice_changes_nothing_and_the_page_form_invites(setting, client):
    from armada_web.events.models import EventInvitation

    s, slug = setting, setting["slug"]
    for _ in range(2):
        assert s["owner"].post(f"/api/events/{slug}/invitations/", {"users": ["cyd"]},
                               format="json").status_code == 201
    assert EventInvitation.objects.count() == 1
    # A trial: ["zed", "ZED"] refused the whole request ("no account named ZED"); a name is one account in any case.
    assert s["owner"].post(f"/api/events/{slug}/invitations/", {"users": ["cyd", "CYD", "Cyd"]},
                           format="json").status_code == 201
    assert EventInvitation.objects.count() == 1
    from django.contrib.auth.models import User

    from armada_web.teams.services import personal_team

    personal_team(user=User.objects.create_user("Cyd"))  # (an account older than the rule, or staff's)
    twice = s["owner"].post(f"/api/events/{slug}/invitations/", {"users": ["CYD"]}, format="json")
    assert twice.status_code == 404 and "CYD names several accounts in different cases" in twice.json()["detail"]
    assert EventInvitation.objects.count() == 1
    client.force_login(s["owner"].user)
    answer = client.post(f"/events/{slug}/invite/", {"teams": "crew", "users": "eve, cyd"})
    assert answer.status_code == 302
    assert sorted(EventInvitation.objects.values_list("team__name", flat=True)) == ["crew", "cyd", "eve"]


def test_an_invited_user_without_a_bot_is_told_how_to_enter_and_an_outsider_is_not(setting, client, make_user):
    """An organiser's trial: an invited account with no bot saw the event with no form and no word (the
    hint was for non-members, and an invitation counts as membership), while a visitor who could not
    enter anyway was told to make a bot."""
    s, slug = setting, setting["slug"]
    dora = make_user("dora")
    assert s["owner"].post(f"/api/events/{slug}/invitations/", {"users": ["dora"]}, format="json").status_code == 201
    client.force_login(dora)
    page = client.get(f"/events/{slug}/").content.decode()
    assert 'id="needs-bot"' in page and "Create a Galaxy bot and upload a valid version to enter." in page
    client.force_login(s["cyd"].user)  # a bot, not invited: the page with the code shows the form, no hint
    coded = client.get(f"/events/{slug}/?invite={s['invite']}").content.decode()
    assert 'id="enter"' in coded and 'id="needs-bot"' not in coded
    fred = make_user("fred")  # no bot, no invitation, no code: a public event would show him no hint either
    from armada_web.events.models import Event

    Event.objects.filter(slug=slug).update(public=True)
    client.force_login(fred)
    outside = client.get(f"/events/{slug}/").content.decode()
    assert 'id="needs-bot"' not in outside and 'id="enter"' not in outside
    assert 'id="needs-bot"' in client.get(f"/events/{slug}/?invite={s['invite']}").content.decode()


def test_the_invite_code_shows_the_page_but_not_the_private_games(setting, client, armada):
    """A privacy review: one who sees a private event's page only through its invite code was shown
    its latest games, links to match pages that answer them 404 (a private event's matches are its
    members'). Its members still see them."""
    from armada_web.events import matchmaking
    from tests.support.seasons_helpers import queued, record_result

    s, slug = setting, setting["slug"]
    assert s["cyd"].post(f"/api/events/{slug}/entries/", {"bot": s["cyd_bot"].pk, "invite": s["invite"]},
                         format="json").status_code == 201
    assert s["eve"].post(f"/api/events/{slug}/entries/", {"bot": s["eve_bot"].pk, "invite": s["invite"]},
                         format="json").status_code == 201
    assert s["owner"].post(f"/api/events/{slug}/start/").status_code == 200
    matchmaking.fill(workers=1)
    match = queued("event")[0]
    record_result(match, 1)
    client.force_login(s["cyd"].user)
    member = client.get(f"/events/{slug}/").content.decode()
    assert 'id="event-games"' in member and f"/matches/{match.pk}/" in member
    client.force_login(s["bob"].user)  # no entry, no invitation: the code alone
    coded = client.get(f"/events/{slug}/?invite={s['invite']}")
    assert coded.status_code == 200 and 'id="event-table"' in coded.content.decode()
    assert f"/matches/{match.pk}/" not in coded.content.decode() and 'id="event-games"' not in coded.content.decode()
    assert client.get(f"/matches/{match.pk}/").status_code == 404


def test_the_owner_renews_the_link_and_takes_back_an_invitation(setting, client):
    """An organiser's trial: an account invited by mistake stayed invited, and a leaked invite link
    showed a private event for good. The owner takes an invitation back (its members lose the
    event, unless their team's bot is entered) and renews the link (the old code stops working)."""
    s, slug = setting, setting["slug"]
    s["owner"].post(f"/api/events/{slug}/invitations/", {"teams": [s["crew"].pk], "users": ["cyd", "eve"]},
                    format="json")
    assert s["cyd"].post(f"/api/events/{slug}/entries/", {"bot": s["cyd_bot"].pk}, format="json").status_code == 201
    teams = {t["name"]: t["id"] for t in s["owner"].get(f"/api/events/{slug}/invitations/").json()}
    for who in ("ann", "bob"):  # invited, they see it: but only its owner takes an invitation back
        assert s[who].delete(f"/api/events/{slug}/invitations/{teams['eve']}/").status_code == 403
    assert s["owner"].delete(f"/api/events/{slug}/invitations/{teams['crew']}/").status_code == 204
    assert s["bob"].get(f"/api/events/{slug}/").status_code == 404  # crew is out: the event is gone for bob
    assert s["owner"].delete(f"/api/events/{slug}/invitations/{teams['crew']}/").status_code == 404  # twice: gone
    assert s["owner"].delete(f"/api/events/{slug}/invitations/{teams['cyd']}/").status_code == 204
    assert s["cyd"].get(f"/api/events/{slug}/").status_code == 200  # her bot is entered: she is in it
    assert s["cyd"].post(f"/api/events/{slug}/invite/").status_code == 403
    old = s["invite"]
    renewed = s["owner"].post(f"/api/events/{slug}/invite/")
    assert renewed.status_code == 200 and renewed.json()["invite"] not in ("", old)
    stranger = s["eve"]
    s["owner"].delete(f"/api/events/{slug}/invitations/{teams['eve']}/")
    assert stranger.get(f"/api/events/{slug}/?invite={old}").status_code == 404  # the old link is dead
    assert stranger.get(f"/api/events/{slug}/?invite={renewed.json()['invite']}").status_code == 200
    client.force_login(s["owner"].user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert 'id="renew-invite"' in page and renewed.json()["invite"] in page
    client.post(f"/events/{slug}/invite/renew/")
    assert renewed.json()["invite"] not in client.get(f"/events/{slug}/").content.decode()


def test_the_uninvite_button_on_the_owner_s_page(setting, client):
    s, slug = setting, setting["slug"]
    s["owner"].post(f"/api/events/{slug}/invitations/", {"users": ["eve"]}, format="json")
    team = s["owner"].get(f"/api/events/{slug}/invitations/").json()[0]["id"]
    client.force_login(s["owner"].user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert 'id="invited-teams"' in page and page.count('eve <span class="muted">(a user)</span>') == 1  # listed once
    done = client.post(f"/events/{slug}/uninvite/", {"team": str(team)}, follow=True).content.decode()
    assert "The invitation is taken back" in done and s["eve"].get(f"/api/events/{slug}/").status_code == 404
    again = client.post(f"/events/{slug}/uninvite/", {"team": "x"}, follow=True).content.decode()
    assert "give the invited team by its id" in again


def test_the_invitation_form_says_what_it_refused_and_keeps_the_typed_names(setting, client, make_user):
    """A reliability review: names past the field's length were left out silently while the rest
    was invited under a success message, and a refusal (one mistyped name) came back with the
    form empty, the whole list to type again."""
    from armada_web.events.models import EventInvitation

    s, slug = setting, setting["slug"]
    client.force_login(s["owner"].user)
    typed = "ann, bob, cyd, nobody-such"
    page = client.post(f"/events/{slug}/invite/", {"users": typed}, follow=True).content.decode()
    assert "nobody-such" in page and "Invited:" not in page
    assert f"{typed}</textarea>" in page and not EventInvitation.objects.exists()  # typed once, shown again
    assert "ann, bob" not in client.get(f"/events/{slug}/").content.decode()  # once only
    too_long = ", ".join(["ann"] * 5000)
    page = client.post(f"/events/{slug}/invite/", {"teams": "crew", "users": too_long}, follow=True).content.decode()
    assert "users: Ensure this value has at most" in page and "Invited:" not in page
    assert not EventInvitation.objects.exists()  # crew is not invited without the users typed beside it
    page = client.post(f"/events/{slug}/invite/", {"users": "ann, bob"}, follow=True).content.decode()
    assert "Invited:" in page and EventInvitation.objects.count() == 2


def test_a_refused_draft_keeps_every_name_and_waits_for_its_own_events_page(setting, client, make_user):
    """A review: the kept names were cut at 4,000 characters (the field takes 15,200), and opening
    another event's page (a second tab) dropped them."""
    s, slug = setting, setting["slug"]
    client.force_login(s["owner"].user)
    other = s["owner"].post("/api/events/", {"name": "Other", "game": "galaxy", "format": "round_robin"},
                            format="json").json()["slug"]
    names = ", ".join(f"nobody-{n:03d}-{'x' * 40}" for n in range(99))  # about 5,000 characters
    client.post(f"/events/{slug}/invite/", {"users": names})
    elsewhere = client.get(f"/events/{other}/").content.decode()  # another event's page (its message shows there)
    assert re.search(r'<textarea name="users"[^>]*>\s*</textarea>', elsewhere)  # its form is empty
    page = client.get(f"/events/{slug}/").content.decode()
    assert f"{names}</textarea>" in page


def test_the_form_names_every_name_not_found_and_takes_a_name_with_a_comma_one_a_line(setting, client):
    """An organiser's trial: a team named "Red, Fleet" could not be invited through the form (split at
    its comma), and with typos in both fields only the teams' was said."""
    from armada_web.events.models import EventInvitation
    from armada_web.teams import services as teams

    s, slug = setting, setting["slug"]
    teams.create_team(user=s["eve"].user, name="Red, Fleet")
    client.force_login(s["owner"].user)
    page = client.post(f"/events/{slug}/invite/", {"teams": "Red Nope", "users": "carlE, dvaeE"},
                       follow=True).content.decode()
    assert "no team named Red Nope; no account named carlE, dvaeE" in page
    page = client.post(f"/events/{slug}/invite/", {"teams": "Red, Fleet\r\ncrew"}, follow=True).content.decode()
    assert "Invited:" in page
    assert sorted(EventInvitation.objects.values_list("team__name", flat=True)) == ["Red, Fleet", "crew"]
    EventInvitation.objects.all().delete()
    page = client.post(f"/events/{slug}/invite/", {"teams": "Red, Fleet\r\n", "users": "ann, bob\r\ncyd"},
                       follow=True).content.decode()  # a name with a comma alone, ended by a line break
    assert "Invited:" in page
    assert sorted(EventInvitation.objects.values_list("team__name", flat=True)) == ["Red, Fleet", "ann", "bob", "cyd"]


def test_the_page_offers_only_bots_that_can_enter_and_a_visitor_a_way_back(setting, client, valid_version):
    """An organiser's trial: carol's enter list offered her team's bot whose team had entered another
    already (then a 409), and the invite link opened signed out said nothing, its login lost it."""
    s, slug = setting, setting["slug"]
    valid_version(s["ann"].user, "ann-own")
    unvalidated = s["ann"].post("/api/bots/", {"name": "ann-new", "game": "galaxy"}, format="json")
    assert unvalidated.status_code == 201  # no version that plays: enter() refuses it, so no offer
    assert s["bob"].post(f"/api/events/{slug}/entries/", {"bot": s["crew_bot"].pk, "invite": s["invite"]},
                         format="json").status_code == 201
    client.force_login(s["ann"].user)
    page = client.get(f"/events/{slug}/?invite={s['invite']}").content.decode()
    form = page.split('id="enter"')[1].split("</form>")[0]
    assert "ann-own" in form and "crew-bot" not in form  # crew is in with it already
    assert "ann-new" not in form
    client.logout()
    page = client.get(f"/events/{slug}/?invite={s['invite']}").content.decode()
    assert 'id="sign-in-to-enter"' in page
    assert f"/accounts/login/?next=/events/{slug}/%3Finvite%3D{s['invite']}" in page
    assert 'id="sign-in-to-enter"' not in client.get(f"/events/{slug}/").content.decode()  # no code: a 404 page
