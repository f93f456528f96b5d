"""An organiser's trial: a running or finished event still offered "Renew the link" and "Take back",
and the services took both after the finish (204, 200). Each is now refused in the states where it
serves nothing, with a 409 naming the state, and the event's page shows exactly the controls its
services take (`events.access.actions`): invitations while open; taking one back until the finish
(while it runs it still hides a private event from a team with no entry); renewing the link while
open, and for a private event in every state (its link shows the page and table to whoever holds it,
so renewing closes a leak), never for a public event that has started (anyone sees it)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def _invite_eve(club):
    slug = club["slug"]
    made = club["olga"].post(f"/api/events/{slug}/invitations/", {"users": ["eve"]}, format="json")
    assert made.status_code == 201, made.json()
    return made.json()[0]["id"]


def _controls(client, slug):
    page = client.get(f"/events/{slug}/").content.decode()
    return {name for name, marker in (("renew", 'id="renew-invite"'), ("take back", ">Take back</button>"),
                                      ("invite", 'id="invite-teams"'), ("end", 'id="end-event"')) if marker in page}


def test_a_running_private_event_takes_back_and_renews_but_invites_no_more(club, client):
    from armada_web.events.models import EventInvitation

    slug, olga, eve = club["slug"], club["olga"], club["eve"]
    team = _invite_eve(club)
    client.force_login(olga.user)
    assert _controls(client, slug) == {"renew", "take back", "invite", "end"}
    assert olga.post(f"/api/events/{slug}/start/").status_code == 200
    assert _controls(client, slug) == {"renew", "take back", "end"}
    late = olga.post(f"/api/events/{slug}/invitations/", {"users": ["nobody-such"]}, format="json")
    assert late.status_code == 409 and "running: it takes no more entries, so no more invitations" \
        in late.json()["detail"]  # the state first: no name would help
    assert eve.get(f"/api/events/{slug}/").status_code == 200
    assert olga.delete(f"/api/events/{slug}/invitations/{team}/").status_code == 204
    assert eve.get(f"/api/events/{slug}/").status_code == 404  # no entry: the private event is hidden again
    assert not EventInvitation.objects.exists()
    old = club["invite"]
    renewed = olga.post(f"/api/events/{slug}/invite/")
    assert renewed.status_code == 200 and renewed.json()["invite"] != old
    assert eve.get(f"/api/events/{slug}/?invite={old}").status_code == 404  # the leaked link no longer shows it


def test_a_finished_event_keeps_its_invitations(club, client):
    from armada_web.events.models import EventInvitation

    slug, olga, eve = club["slug"], club["olga"], club["eve"]
    team = _invite_eve(club)
    assert olga.post(f"/api/events/{slug}/start/").status_code == 200
    assert olga.post(f"/api/events/{slug}/end/").status_code == 200
    refused = olga.delete(f"/api/events/{slug}/invitations/{team}/")
    assert refused.status_code == 409
    assert refused.json()["detail"] == "the event is finished: its invitations stay as they were"
    late = olga.post(f"/api/events/{slug}/invitations/", {"users": ["mia"]}, format="json")
    assert late.status_code == 409 and "finished" in late.json()["detail"]
    assert list(EventInvitation.objects.values_list("team_id", flat=True)) == [team]
    assert eve.get(f"/api/events/{slug}/").status_code == 200  # still invited: she still sees the record
    client.force_login(olga.user)
    assert _controls(client, slug) == {"renew"}  # a private event's link still shows its table
    page = client.get(f"/events/{slug}/").content.decode()
    assert 'id="invited-teams"' in page and "eve" in page  # the invited are still listed, without buttons
    done = client.post(f"/events/{slug}/uninvite/", {"team": str(team)}, follow=True).content.decode()
    assert "the event is finished: its invitations stay as they were" in done and EventInvitation.objects.count() == 1


@pytest.mark.parametrize("finished", [False, True])
def test_a_public_event_that_has_started_keeps_its_link(make_user, valid_version, api, client, finished):
    from armada_web.events.models import Event

    olga, mia = api(make_user("olga")), api(make_user("mia"))
    made = olga.post("/api/events/", {"name": "Open club", "game": "galaxy", "format": "round_robin",
                                      "public": True}, format="json").json()
    slug = made["slug"]
    for who in (olga, mia):
        bot = valid_version(who.user, f"{who.user.username}-bot").bot
        assert who.post(f"/api/events/{slug}/entries/", {"bot": bot.pk, "invite": made["invite"]},
                        format="json").status_code == 201
    client.force_login(olga.user)
    assert "renew" in _controls(client, slug)
    assert olga.post(f"/api/events/{slug}/start/").status_code == 200
    if finished:
        assert olga.post(f"/api/events/{slug}/end/").status_code == 200
    refused = olga.post(f"/api/events/{slug}/invite/")
    assert refused.status_code == 409
    assert refused.json()["detail"] == ("the event is finished: entries are closed, so its invite link no longer "
                                        "serves" if finished else "the event has started: entries are closed, so "
                                        "its invite link no longer serves")
    assert Event.objects.get(slug=slug).invite == made["invite"]
    assert "renew" not in _controls(client, slug)
    page = client.post(f"/events/{slug}/invite/renew/", follow=True).content.decode()
    assert "its invite link no longer serves" in page and Event.objects.get(slug=slug).invite == made["invite"]


def test_the_actions_are_the_owner_s_only(club):
    from armada_web.events.access import EventActions, actions
    from armada_web.events.models import Event

    event = Event.objects.get(slug=club["slug"])
    assert actions(user=club["mia"].user, event=event) == EventActions()
    owner = actions(user=club["olga"].user, event=event)
    assert owner.owner and owner.invite and owner.renew_invite and owner.uninvite and owner.start and owner.end


def test_a_name_kept_is_not_judged_by_a_rule_made_since(make_user, api):
    """A review: the edit form sends the name with every change, so an event named before the rule on
    stacked accent marks (D-S-31: existing names stay) could not have its start moved."""
    from datetime import timedelta

    from django.utils import timezone

    from armada_web.events import services
    from armada_web.events.models import Event
    from armada_web.seasons.services import check_season
    from armada_web.web.errors import Invalid

    olga = make_user("olga")
    slug = api(olga).post("/api/events/", {"name": "Club", "game": "galaxy", "format": "round_robin",
                                           "games_per_pair": 1}, format="json").json()["slug"]
    old = "Z\u0336\u0336\u0336ero"
    Event.objects.filter(slug=slug).update(name=old)
    starts = timezone.now() + timedelta(days=2)
    edited = services.edit_event(user=olga, event=Event.objects.get(slug=slug), name=old, starts=starts.isoformat())
    assert edited.name == old and edited.starts == starts
    with pytest.raises(Invalid, match="stacked accent marks"):
        services.edit_event(user=olga, event=Event.objects.get(slug=slug), name="Z\u0336\u0336\u0336eros")
    assert check_season(slug="s1", game="galaxy", name=old, was=old).name == old
    with pytest.raises(Invalid, match="stacked accent marks"):
        check_season(slug="s1", game="galaxy", name=old)
