"""No input answers 500 on the pages either (issue 20): property-based requests to every page route
with drawn path values, query strings and form bodies, anonymous and signed in, never a server
error (the test client answers one as a 500 instead of raising it)."""

from __future__ import annotations

import os
from urllib.parse import quote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from armada_web.teams.services import create_team
from armada_web.web.inputs import MAX_ID

pytestmark = pytest.mark.django_db

#: Anything a path segment or a query value may hold: ids near the limits, other numbers, text.
VALUE = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["0", "1", str(MAX_ID), str(MAX_ID + 1), "²", "٣", "1e9", "-1", " 1", "%00", "last", ""]),
    st.text(max_size=30),
)
ROUTES = ["/ladder/galaxy/?q={v}&page={w}", "/ladder/mothership/?q={v}&page={w}", "/ladder/mothership/{v}/",
          "/ladder/mothership/{v}/{w}/", "/matches/{v}/", "/users/{v}/", "/sdk/{v}", "/rules/{v}/", "/bots/{v}/",
          "/bots/{v}/versions/{w}/", "/bots/{v}/versions/{w}/source/", "/bots/{v}/upload/", "/my/bots/?page={v}",
          "/accounts/password/reset/{v}/{w}/", "/accounts/email/confirm/{v}{w}/", "/{v}", "/teams/{v}/?page={w}",
          "/teams/{v}/join/?key={w}", "/bots/new/?team={v}"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                            HealthCheck.too_slow])


@pytest.fixture
def sides(make_user, valid_version):
    owner = make_user("owner")
    version = valid_version(owner, "target")
    valid_version(owner, "race-one", game="mothership", orders={"mothership": {"defence": 10}, "fighters": []})
    team = create_team(user=make_user("other"), name="crew")  # the owner may try to join it, remove from it
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(owner)
    return {"bot": version.bot, "anonymous": Client(raise_request_exception=False), "owner": signed_in,
            "team": team}


def show(value: str) -> str:
    return quote(value, safe="")


@SETTINGS
@given(route=st.sampled_from(ROUTES), v=VALUE, w=VALUE, who=st.sampled_from(["anonymous", "owner"]))
def test_any_value_in_any_page_route_is_never_a_server_error(sides, route, v, w, who):
    response = sides[who].get(route.format(v=show(v), w=show(w)))
    assert response.status_code < 500, (route, v, w, response.status_code)


@SETTINGS
@given(version=VALUE, name=VALUE, game=VALUE, description=st.text(max_size=50), filename=VALUE,
       data=st.binary(max_size=200))
def test_any_form_body_is_never_a_server_error(sides, version, name, game, description, filename, data):
    client, bot = sides["owner"], sides["bot"]
    # A name Django's test client itself refuses to send ("", ".", "..", "a/") is no request at all.
    sent_name = filename if os.path.basename(filename) not in {"", ".", ".."} else "x"
    answers = [
        client.post(f"/bots/{bot.pk}/active/", {"version": version}),
        client.post("/bots/new/", {"name": name, "game": game, "description": description}),
        client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile(sent_name, data)}),
        sides["anonymous"].post("/accounts/login/", {"username": name, "password": description}),
        sides["anonymous"].post("/accounts/signup/", {"username": name, "email": game, "password1": description,
                                                      "password2": description}),
        client.post("/accounts/profile/", {"name": name, "password": description}),
        client.post("/accounts/email/", {"email": name, "password": description}),
        sides["anonymous"].post(f"/accounts/email/confirm/{quote(name, safe='')}x/"),
        client.post(f"/bots/{bot.pk}/move/", {"team": version, "confirm": "yes"}),
        client.post("/bots/new/", {"name": name, "game": "galaxy", "team": version}),
        client.post("/teams/new/", {"name": name}),
        client.post(f"/teams/{sides['team'].pk}/join/", {"key": description}),
        client.post(f"/teams/{sides['team'].pk}/remove/", {"username": name}),
    ]
    for answer in answers:
        assert answer.status_code < 500, answer.content[:300]
