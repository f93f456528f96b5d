"""What staff may not do in the admin (a code review): delete a match (its rating changes went with
it and nobody recomputed the ratings; voiding is the way), edit a rating or a league line (computed
from the matches), delete an event that has games. And an event whose owner's account is gone has
no owner: nobody signed out (or in) may start it or change its invitations."""

from __future__ import annotations

import pytest

from tests.events.test_events import create, enter
from tests.support.seasons_helpers import record_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def recorded(make_user, valid_version):
    """A ranked match recorded with a winner: its rating changes and the two ratings it moved."""
    from armada_web.ladder.models import Rating
    from armada_web.matches.services import create_match

    first, second = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    match = create_match(game="galaxy", first=first, second=second, seed=1)
    record_result(match, 1)
    assert match.rating_changes.count() == 2
    return match, Rating.objects.get(version=first)


def test_a_match_cannot_be_deleted_in_the_admin_only_voided(recorded, admin_client):
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.models import Match

    match, _rating = recorded
    assert admin_client.get(f"/admin/matches/match/{match.pk}/delete/").status_code == 403
    assert admin_client.post(f"/admin/matches/match/{match.pk}/delete/", {"post": "yes"}).status_code == 403
    listing = admin_client.get("/admin/matches/match/")
    assert "delete_selected" not in listing.content.decode() and 'value="void"' in listing.content.decode()
    answer = admin_client.post("/admin/matches/match/", {"action": "delete_selected", "_selected_action": [match.pk],
                                                         "post": "yes"})
    assert answer.status_code in (200, 302)
    assert Match.objects.filter(pk=match.pk).exists() and RatingChange.objects.filter(match=match).count() == 2
    # nor added (an empty form was a 500) or changed (the replay's hash, the reaper's fields): shown
    assert admin_client.get("/admin/matches/match/add/").status_code == 403
    page = admin_client.get(f"/admin/matches/match/{match.pk}/change/")
    assert page.status_code == 200 and 'name="replay_sha256"' not in page.content.decode()
    assert admin_client.post(f"/admin/matches/match/{match.pk}/change/", {"replay_sha256": "0" * 64}).status_code == 403


def test_ratings_and_league_lines_are_shown_read_only(recorded, admin_client):
    from armada_web.ladder.models import Rating

    _match, rating = recorded
    page = admin_client.get(f"/admin/ladder/rating/{rating.pk}/change/")
    assert page.status_code == 200 and 'name="mu"' not in page.content.decode()  # shown, not a field
    answer = admin_client.post(f"/admin/ladder/rating/{rating.pk}/change/", {"mu": "99", "sigma": "1", "games": "0",
                                                                            "wins": "0", "draws": "0", "losses": "0"})
    assert answer.status_code == 403
    assert Rating.objects.get(pk=rating.pk).mu == rating.mu
    assert admin_client.get(f"/admin/ladder/rating/{rating.pk}/delete/").status_code == 403
    assert admin_client.get("/admin/ladder/leagueentry/add/").status_code == 403


def test_staff_delete_an_open_event_but_not_a_running_one(make_user, valid_version, api, admin_client):
    from armada_web.events.models import Event

    olga, mia = make_user("olga"), make_user("mia")
    owner, member = api(olga), api(mia)
    open_slug = create(owner, name="Spam").json()["slug"]
    made = create(owner, name="Club").json()
    running = made["slug"]
    assert enter(owner, running, valid_version(olga, "olga-bot"), None).status_code == 201
    assert enter(member, running, valid_version(mia, "mia-bot"), made["invite"]).status_code == 201
    assert owner.post(f"/api/events/{running}/start/").status_code == 200
    opened, started = Event.objects.get(slug=open_slug), Event.objects.get(slug=running)
    assert admin_client.get(f"/admin/events/event/{started.pk}/delete/").status_code == 403
    assert "delete_selected" not in admin_client.get("/admin/events/event/").content.decode()
    assert admin_client.get(f"/admin/events/event/{opened.pk}/delete/").status_code == 200
    assert admin_client.post(f"/admin/events/event/{opened.pk}/delete/", {"post": "yes"}).status_code == 302
    assert list(Event.objects.values_list("slug", flat=True)) == [running]


def test_an_event_whose_owner_left_has_no_owner_to_act_for(make_user, valid_version, api, client):
    from armada_web.accounts.services import delete_account
    from armada_web.events.models import Event, EventState

    olga = make_user("olga")
    owner = api(olga)
    slug = create(owner, public=True).json()["slug"]
    enter(owner, slug, valid_version(olga, "olga-bot"), None)
    delete_account(user=olga, password="a-long-test-password-42")
    event = Event.objects.get(slug=slug)
    assert event.owner_id is None and event.state == EventState.OPEN
    stranger = api(make_user("mallory"))
    assert client.post(f"/api/events/{slug}/start/").status_code in (401, 403)
    assert stranger.post(f"/api/events/{slug}/start/").status_code == 403
    assert stranger.post(f"/api/events/{slug}/invite/").status_code == 403
    assert client.post(f"/events/{slug}/start/").status_code in (302, 403)  # the page: sign in first
    # the services themselves: nobody signed out stands for an owner that is gone (pk None == owner_id None)
    from django.contrib.auth.models import AnonymousUser

    from armada_web.events import services
    from armada_web.web.errors import Forbidden

    for act in (services.start_event, services.renew_invite, services.end_event):
        with pytest.raises(Forbidden):
            act(user=AnonymousUser(), event=event)
    assert Event.objects.get(slug=slug).state == EventState.OPEN
