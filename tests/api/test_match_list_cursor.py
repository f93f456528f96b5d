"""`/api/matches/`'s cursor links lead somewhere: `previous` is null on the newest page however it was
reached, `next` null on the oldest (a made-up cursor past every match gave a `previous` to an empty
page: an API-only trial), and a cursor with a page number is a 400."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.replays import public_match

pytestmark = pytest.mark.django_db


def ids(page: dict) -> list[int]:
    return [row["id"] for row in page["results"]]


def test_cursor_links_go_only_where_there_are_matches(make_user, valid_version):
    a, b = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    from armada_web.matches.models import Match

    made = sorted(public_match(a, b, seed=n).pk for n in range(6))
    Match.objects.filter(pk=made.pop(0)).delete()  # so that a cursor below the oldest match is a valid one
    client = APIClient()
    seen, url, pages = [], "/api/matches/?page_size=2", []
    while url:
        page = client.get(url).json()
        pages.append(page)
        seen += ids(page)
        url = page["next"]
    assert seen == made[::-1] and len(pages) == 3 and pages[0]["previous"] is None
    back = client.get(pages[-1]["previous"]).json()
    assert ids(back) == ids(pages[1])
    past = client.get(f"/api/matches/?page_size=2&cursor=o{made[-1] + 1000}").json()  # past every match
    assert ids(past) == made[:2:-1] and past["previous"] is None
    oldest = client.get(f"/api/matches/?page_size=2&cursor=n{made[0] - 1}").json()  # before every match
    assert ids(oldest) == [made[1], made[0]] and oldest["next"] is None and oldest["previous"] is not None
    both = client.get(f"/api/matches/?page_size=2&cursor=o{made[-1]}&page=2")
    assert both.status_code == 400
    assert both.json() == {"detail": "give a cursor (the list's next and previous links) or a page number, not both"}


@pytest.mark.parametrize(("url", "name"), [
    ("/api/bots/?ower=alice", "ower"), ("/api/matches/?bots=7", "bots"), ("/api/replays/?gmae=galaxy", "gmae"),
    ("/api/ladder/galaxy/?search=x", "search"), ("/api/events/?q=x", "q"), ("/api/seasons/?state=open", "state"),
])
def test_a_list_refuses_a_query_parameter_it_does_not_take(url, name):
    """An API-only trial: a misspelt filter returned the whole list as if applied."""
    answer = APIClient().get(url)
    assert answer.status_code == 400, answer.content
    assert answer.json()["detail"].startswith(f"unknown query parameter {name!r}: this list takes ")


def test_what_a_list_takes_still_works():
    client = APIClient()
    for url in ("/api/bots/?owner=alice&game=galaxy&page=1&page_size=5", "/api/matches/?game=galaxy&page_size=5",
                "/api/replays/?game=galaxy&page_size=5", "/api/ladder/galaxy/?page=1", "/api/schema/?format=json"):
        assert client.get(url).status_code == 200, url
