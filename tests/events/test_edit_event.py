"""Its owner changes an event (an organiser's wish after the trials: a start time set wrong, or a
ladder that should run a day longer, meant a new event and every invitation again): the name at any
time, the times and numbers while it is open, a running ladder's end; the same rules as creating
one; everyone else refused; nothing changed by a refusal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db


def _iso(when):
    return when.isoformat().replace("+00:00", "Z")


def test_the_owner_changes_an_open_event_and_nobody_else_does(club):
    from armada_web.events.models import Event

    slug, olga = club["slug"], club["olga"]
    later = timezone.now() + timedelta(days=1)
    answer = olga.patch(f"/api/events/{slug}/", {"name": "  Friday   club ", "starts": _iso(later),
                                                 "max_entrants": 8, "games_per_pair": 3}, format="json")
    assert answer.status_code == 200, answer.json()
    event = Event.objects.get(slug=slug)
    assert (event.name, event.max_entrants, event.games_per_pair) == ("Friday club", 8, 3)
    assert abs((event.starts - later).total_seconds()) < 1
    assert olga.patch(f"/api/events/{slug}/", {"starts": None}, format="json").json()["starts"] is None
    assert club["mia"].patch(f"/api/events/{slug}/", {"name": "Mine"}, format="json").status_code == 403
    assert club["eve"].patch(f"/api/events/{slug}/", {"name": "Mine"}, format="json").status_code == 404
    assert Event.objects.get(slug=slug).name == "Friday club"


@pytest.mark.parametrize(("body", "status", "message"), [
    ({"max_entrants": 1}, 400, "max_entrants must be a whole number from 2"),
    ({"ends": "2020-01-01T00:00:00Z"}, 400, "an event ends after it starts (and after now)"),
    ({"starts": "2020-01-01T00:00:00Z"}, 400, "starts is in the past"),
    ({"name": "  "}, 400, ""),
    ({"nmae": "typo"}, 400, "unknown field 'nmae'"),
])
def test_bad_changes_are_refused_and_change_nothing(club, body, status, message):
    from armada_web.events.models import Event

    before = Event.objects.filter(slug=club["slug"]).values().get()
    answer = club["olga"].patch(f"/api/events/{club['slug']}/", body, format="json")
    assert answer.status_code == status and message in str(answer.json()), answer.json()
    assert Event.objects.filter(slug=club["slug"]).values().get() == before


def test_max_entrants_is_not_below_the_entries_and_a_started_event_keeps_its_plan(club):
    slug, olga = club["slug"], club["olga"]
    olga.patch(f"/api/events/{slug}/", {"max_entrants": 5}, format="json")
    under = olga.patch(f"/api/events/{slug}/", {"max_entrants": 2}, format="json")
    assert under.status_code == 200  # 2 entries: 2 is fine
    olga.post(f"/api/events/{slug}/start/")
    late = olga.patch(f"/api/events/{slug}/", {"games_per_pair": 4}, format="json")
    assert late.status_code == 409 and "its games_per_pair no longer change" in late.json()["detail"]
    assert olga.patch(f"/api/events/{slug}/", {"name": "Renamed"}, format="json").json()["name"] == "Renamed"


def test_a_running_ladder_runs_longer(make_user, valid_version, api):
    from armada_web.events.models import Event

    olga, mia = api(make_user("olga")), api(make_user("mia"))
    ends = timezone.now() + timedelta(hours=2)
    made = olga.post("/api/events/", {"name": "Ladder", "game": "galaxy", "format": "ladder", "ends": _iso(ends)},
                     format="json").json()
    for client in (olga, mia):
        bot = valid_version(client.user, f"{client.user.username}-bot").bot
        client.post(f"/api/events/{made['slug']}/entries/", {"bot": bot.pk, "invite": made["invite"]}, format="json")
    assert olga.post(f"/api/events/{made['slug']}/start/").status_code == 200
    later = ends + timedelta(days=1)
    assert olga.patch(f"/api/events/{made['slug']}/", {"ends": _iso(later)}, format="json").status_code == 200
    assert abs((Event.objects.get(slug=made["slug"]).ends - later).total_seconds()) < 1
    refused = olga.patch(f"/api/events/{made['slug']}/", {"max_entrants": 9}, format="json")
    assert refused.status_code == 409 and "a running ladder's end still does" in refused.json()["detail"]
    no_end = olga.patch(f"/api/events/{made['slug']}/", {"ends": None}, format="json")
    assert no_end.status_code == 400 and "a ladder event needs its end" in no_end.json()["detail"]


def test_the_owners_page_changes_the_event(club, client):
    slug = club["slug"]
    client.force_login(club["mia"].user)
    assert 'id="edit-event"' not in client.get(f"/events/{slug}/").content.decode()
    client.force_login(club["olga"].user)
    page = client.get(f"/events/{slug}/").content.decode()
    assert 'id="edit-event"' in page and 'name="games_per_pair"' in page
    done = client.post(f"/events/{slug}/edit/", {"name": "Club <b>two</b>", "starts": "", "ends": "",
                                                 "max_entrants": "6", "games_per_pair": "2"}, follow=True)
    text = done.content.decode()
    assert "Club &lt;b&gt;two&lt;/b&gt; is changed." in text
    bad = client.post(f"/events/{slug}/edit/", {"name": "x", "max_entrants": "1", "games_per_pair": "2"},
                      follow=True).content.decode()
    assert "max_entrants" in bad and "Club &lt;b&gt;two&lt;/b&gt;" in bad  # refused, not changed


def test_the_page_sends_on_only_the_times_that_changed(club, client):
    """An events trial: the page's form sends both times back, to the minute; renaming an event whose
    start had passed (waiting for a second entry) was refused ("starts is in the past"), and a rename
    cut the seconds off a running ladder's end."""
    from armada_web.events.models import Event

    slug = club["slug"]
    past = timezone.now().replace(microsecond=0) - timedelta(minutes=10, seconds=-17)
    Event.objects.filter(slug=slug).update(starts=past)  # (as a start that came with one entry only)
    client.force_login(club["olga"].user)
    shown = past.strftime("%Y-%m-%dT%H:%M")  # what the page's field holds
    done = client.post(f"/events/{slug}/edit/", {"name": "Renamed", "starts": shown, "ends": "",
                                                 "max_entrants": "6", "games_per_pair": "2"}, follow=True)
    assert "Renamed is changed." in done.content.decode()
    event = Event.objects.get(slug=slug)
    assert (event.name, event.starts) == ("Renamed", past)  # its start as it was, seconds and all
    later = (timezone.now() + timedelta(days=2)).replace(second=0, microsecond=0)
    moved = client.post(f"/events/{slug}/edit/", {"name": "Renamed", "starts": later.strftime("%Y-%m-%dT%H:%M"),
                                                  "ends": "", "max_entrants": "6", "games_per_pair": "2"})
    assert moved.status_code == 302 and Event.objects.get(slug=slug).starts == later  # a change is sent on
