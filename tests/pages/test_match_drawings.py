"""Issue 27 on the match page (Django's test client): the viewer is told to fetch the bots' drawings of
exactly the seats the user may see (the owner's own, every seat for staff), shown at first only for
the user's own seats; nobody else's page names a drawings URL.

Until the API serves the drawings (route `api-match-debug`), the page names no URL; these tests then
add a stand-in route of that name at the same path, so they check the page's part either way."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, path, reverse

from armada_web.pages.match_drawings import drawing_sources
from armada_web.urls import urlpatterns as site_urlpatterns
from tests.pages.test_pages import body

pytestmark = pytest.mark.django_db


def _stand_in(request: HttpRequest, pk: int) -> HttpResponse:
    return HttpResponse(status=404)


#: The site's URLs plus a stand-in drawings route (used only while the API has none).
urlpatterns = [*site_urlpatterns, path("api/matches/<int:pk>/debug/", _stand_in, name="api-match-debug")]


@pytest.fixture(autouse=True)
def drawings_route(settings: Any) -> None:
    try:
        reverse("api-match-debug", args=[1])
    except NoReverseMatch:
        settings.ROOT_URLCONF = __name__


def sources(page: str) -> list[dict[str, Any]]:
    """The viewer's data-armada-debug list, as the browser reads it ([] when the page names none)."""
    found = re.findall(r'data-armada-debug="([^"]*)"', page)
    assert len(found) <= 1
    return json.loads(html.unescape(found[0])) if found else []


def test_drawings_urls_only_for_the_seats_the_user_may_see(client, arena, make_user):
    m = arena.match
    url = f"/matches/{m.pk}/"
    first = body(client, url)
    assert sources(first) == [] and "/debug/" not in first  # anonymous

    client.force_login(arena.alice)  # seat 1's owner
    assert sources(body(client, url)) == [{"seat": 1, "url": f"/api/matches/{m.pk}/debug/?seat=1", "on": True}]
    client.force_login(arena.bob)  # seat 2's owner
    assert sources(body(client, url)) == [{"seat": 2, "url": f"/api/matches/{m.pk}/debug/?seat=2", "on": True}]

    client.force_login(make_user("carol"))  # neither seat's
    assert "/debug/" not in body(client, url)

    client.force_login(make_user("root", is_staff=True))  # staff: both seats, behind their toggles
    assert sources(body(client, url)) == [{"seat": s, "url": f"/api/matches/{m.pk}/debug/?seat={s}", "on": False}
                                          for s in (1, 2)]
    pairing = body(client, f"/ladder/mothership/{arena.race_a.bot_id}/{arena.race_b.bot_id}/")
    assert "data-armada-src" in pairing and "data-armada-debug" not in pairing  # a league pairing: no drawings


class _NoDrawingsRoute:
    """A URL configuration without the drawings route (the site before the API served them)."""

    urlpatterns: list[Any] = []


def test_no_url_while_the_api_serves_no_drawings(arena, settings):
    settings.ROOT_URLCONF = _NoDrawingsRoute
    seats = list(arena.match.participants.all())
    assert drawing_sources(user=arena.alice, match=arena.match, seats=seats) == []
