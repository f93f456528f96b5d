"""A signed-in user's answers are `Cache-Control: private` (web.caching): a security review found
the match page and `GET /api/matches/{id}/`, which carry the owner's log, cacheable by any proxy."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_answers_to_a_signed_in_user_are_private_and_the_rest_are_left_alone(make_user, valid_version, api, client):
    version = valid_version(make_user("alice"), "alpha")
    owner = version.bot.owner
    assert "Cache-Control" not in client.get("/bots/").headers  # anonymous: a public page, as it was
    assert "Cache-Control" not in api_anonymous().get(f"/api/versions/{version.pk}/").headers
    client.force_login(owner)
    assert client.get("/bots/").headers["Cache-Control"] == "private"
    token = api(owner)
    assert token.get(f"/api/versions/{version.pk}/").headers["Cache-Control"] == "private"  # carries its log
    source = token.get(f"/api/versions/{version.pk}/source/")
    assert source.headers["Cache-Control"] == "private, no-store"  # the view's own stays as it said


def api_anonymous():
    from rest_framework.test import APIClient

    return APIClient()
