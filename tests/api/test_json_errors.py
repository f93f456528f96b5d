"""Every error under /api/ is JSON `{"detail": ...}` with its status, whoever answers it: DRF, the
catch-all of unknown API paths (also for an id past 63 bits, which no route takes), Django's CSRF
check and its 403 and 404 handlers, a view outside DRF (405); the site's pages keep their HTML.
And the match API says which worker host played a match (`"host"`, in the schema too)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.test import Client
from django.urls import path
from django.views.decorators.http import require_POST
from rest_framework.test import APIClient

from armada_web import urls as site

pytestmark = pytest.mark.django_db
HUGE_ID = 2**63  # one past the largest id: the <id:> converter refuses it


def plain(request: HttpRequest) -> HttpResponse:
    """A view outside DRF: Django's CSRF check guards it."""
    return HttpResponse("<p>done</p>")


def missing(request: HttpRequest) -> HttpResponse:
    raise Http404("nothing here")


def denied(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("staff only")


@require_POST
def post_only(request: HttpRequest) -> HttpResponse:
    return HttpResponse("<p>posted</p>")


# This module is the URL conf of the tests that need views outside DRF (`plain_views`).
urlpatterns = [*[path(f"{prefix}{name}/", view) for prefix in ("api/", "") for name, view in
                 (("plain", plain), ("missing", missing), ("denied", denied), ("post-only", post_only))],
               *site.urlpatterns]
handler400, handler403, handler404, handler500 = site.handler400, site.handler403, site.handler404, site.handler500


@pytest.fixture
def plain_views(settings):
    settings.ROOT_URLCONF = __name__


def detail(response: Any, status: int) -> str:
    """The JSON error body's one line, after checking the status and the content type."""
    assert response.status_code == status, (response.status_code, response.content[:200])
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    data = response.json()
    assert set(data) == {"detail"} and isinstance(data["detail"], str) and data["detail"], data
    return data["detail"]


def html(response: Any, status: int) -> str:
    assert response.status_code == status and response["Content-Type"].startswith("text/html")
    return response.content.decode()


def test_a_session_write_without_its_csrf_token_is_a_json_403_under_api_only(plain_views, make_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("member"))
    assert detail(client.post("/api/plain/"), 403).startswith("CSRF Failed: CSRF cookie not set.")
    assert detail(client.post("/api/tokens/", {"name": "x"}, content_type="application/json"), 403).startswith(
        "CSRF Failed")  # DRF's own check says the same
    assert 'id="csrf-failure"' in html(client.post("/plain/"), 403)  # the site's "Form expired" page
    client.cookies["csrftoken"] = token = "a" * 32  # a CSRF secret, sent back in the header: through
    assert client.post("/api/plain/", HTTP_X_CSRFTOKEN=token).status_code == 200


def test_unknown_api_paths_and_ids_past_63_bits_are_json_404s(make_user, api):
    session = Client(enforce_csrf_checks=True)
    session.force_login(make_user("member"))
    for client in (APIClient(), api(make_user("holder")), session):
        assert detail(client.delete(f"/api/tokens/{HUGE_ID}/"), 404) == f"no such API path: /api/tokens/{HUGE_ID}/"
        assert detail(client.get(f"/api/matches/{HUGE_ID}/"), 404).startswith("no such API path")
        assert detail(client.post("/api/no-such-thing/"), 404) == "no such API path: /api/no-such-thing/"
        assert detail(client.get("/api/tokens"), 404)  # no slash: no redirect to an HTML page
    refused = APIClient().delete(f"/api/tokens/{HUGE_ID - 1}/")  # an id: DRF's view, which asks who it is
    assert refused.status_code in (401, 403) and set(refused.json()) == {"detail"}


def test_djangos_own_errors_are_json_under_api_and_pages_elsewhere(plain_views):
    client = Client()
    assert detail(client.get("/api/missing/"), 404) == "not found"  # the message stays the server's
    assert "nothing here" not in html(client.get("/missing/"), 404)
    assert detail(client.get("/api/denied/"), 403) == "staff only"
    html(client.get("/denied/"), 403)
    response = client.get("/api/post-only/")
    assert detail(response, 405) == 'method "GET" not allowed' and response["Allow"] == "POST"
    page = html(client.get("/post-only/"), 405)  # a page's 405 is the site's page (MethodNotAllowedPage)
    assert 'id="method-not-allowed"' in page
    html(client.get("/no-such-page/"), 404)  # a page path still gets the site's page
    assert client.get("/api/plain/").content == b"<p>done</p>"  # only errors are made JSON


def test_the_match_api_names_the_worker_host_that_played_it(make_user, valid_version):
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    first, second = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    queued = create_match(game="galaxy", first=first, second=second, seed=3)
    played = create_match(game="galaxy", first=second, second=first, seed=4)
    Match.objects.filter(pk=played.pk).update(status="void", host="worker-2", worker="matches.8000@worker-2",
                                              reason="platform failure: the test")
    client = APIClient()
    data = client.get(f"/api/matches/{played.pk}/").json()
    assert data["host"] == "worker-2" and data["status"] == "void"
    assert {"id", "game", "kind", "status", "created", "finished", "players", "seed", "attempts", "started",
            "turns", "result", "reason", "engine_version", "replay"} < set(data)  # every field kept
    assert client.get(f"/api/matches/{queued.pk}/").json()["host"] == ""  # no host claimed it yet
    assert "host" not in client.get("/api/matches/").json()["results"][0]  # the list's fields are as they were
    schema = client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    assert schema["MatchDetail"]["properties"]["host"]["type"] == "string"
    assert "host" in schema["MatchDetail"]["required"]


def test_the_browsable_api_bears_armadas_name(client):
    """A crawl of the site: its pages were titled "Match List - Django REST framework"."""
    page = html(client.get("/api/matches/", HTTP_ACCEPT="text/html"), 200)
    assert "<title>Match List · Armada API</title>" in re.sub(r"\s+", " ", page).replace("> ", ">").replace(" <", "<")
    assert "Django REST framework</title>" not in page and 'href="/api/docs/">Armada API</a>' in page
