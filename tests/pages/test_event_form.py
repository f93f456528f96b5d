"""An organiser's trial: the event form's messages were mixed, Django's for some inputs ("Ensure this
value is greater than or equal to 1.", "This field is required.") and the service's for others (11
games per pair, the API's "an event needs a name"). The forms now leave those checks to
events.services, so the page says the service's words, with what was typed kept in the form."""

from __future__ import annotations

import html

import pytest

pytestmark = pytest.mark.django_db

DJANGO = ("Ensure this value", "This field is required", "Enter a whole number")


def _new(client, **fields):
    body = {"name": "Club night", "game": "galaxy", "format": "round_robin", "games_per_pair": "2",
            "max_entrants": "", "starts": "", "ends": "", **fields}
    return client.post("/events/new/", body)


@pytest.mark.parametrize(("fields", "said"), [
    ({"games_per_pair": "0"}, "games_per_pair must be a whole number from 1 to 10"),
    ({"games_per_pair": "11"}, "games_per_pair must be a whole number from 1 to 10"),
    ({"games_per_pair": "two"}, "games_per_pair must be a whole number from 1 to 10"),
    ({"games_per_pair": "9" * 5000}, "games_per_pair must be a whole number from 1 to 10"),
    ({"max_entrants": "1"}, "max_entrants must be a whole number from 2 to 32"),
    ({"name": ""}, "an event needs a name"),
    ({"name": "   "}, "an event needs a name"),
    ({"name": "x" * 101}, "an event's name has at most 100 characters (this one has 101)"),
    ({"name": "x" * 5000}, "an event's name has at most 100 characters (this one has more than 400)"),
])
def test_the_new_event_form_says_the_service_s_words_and_keeps_the_input(make_user, client, fields, said):
    from armada_web.events.models import Event

    client.force_login(make_user("olga"))
    answer = _new(client, **{"name": "Club night", **fields})
    page = html.unescape(answer.content.decode())
    assert answer.status_code == 400 and said in page, page[:3000]
    assert not any(words in page for words in DJANGO) and not Event.objects.exists()
    assert 'value="Club night"' in page or "name" in fields  # what was typed stays
    if fields.get("games_per_pair") == "0":
        assert 'name="games_per_pair" value="0"' in page


def test_blank_numbers_take_the_defaults(make_user, client):
    from armada_web.events.models import Event

    client.force_login(make_user("olga"))
    assert _new(client, games_per_pair="").status_code == 302
    event = Event.objects.get()
    assert (event.games_per_pair, event.max_entrants) == (1, 32)


def test_the_edit_form_says_the_service_s_words_and_keeps_the_input(make_user, api, client):
    from armada_web.events.models import Event

    olga = make_user("olga")
    slug = api(olga).post("/api/events/", {"name": "Club", "game": "galaxy", "format": "round_robin"},
                          format="json").json()["slug"]
    client.force_login(olga)
    for fields, said in (({"games_per_pair": "0"}, "games_per_pair must be a whole number from 1 to 10"),
                         ({"name": ""}, "an event needs a name"),
                         ({"max_entrants": ""}, "max_entrants must be a whole number from 2 to 32")):
        body = {"name": "Club two", "starts": "", "ends": "", "max_entrants": "6", "games_per_pair": "2", **fields}
        page = html.unescape(client.post(f"/events/{slug}/edit/", body, follow=True).content.decode())
        assert said in page and not any(words in page for words in DJANGO), page[:3000]
        assert '<details class="panel" id="edit-event" open>' in page  # opened, with what was typed
        for name, value in body.items():
            if value:
                assert f'name="{name}" value="{value}"' in page
        assert Event.objects.get(slug=slug).name == "Club"  # nothing changed
        again = client.get(f"/events/{slug}/").content.decode()  # once: the next visit shows the event's values
        assert 'value="Club"' in again and 'id="edit-event" open' not in again
