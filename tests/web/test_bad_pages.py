"""Page numbers, page sizes and cursors that are out of range, garbled, negative or huge answer 400
with a message that says what is wrong (pages and API alike), never a 500, and never by reading the
list: a number no list can reach is refused before any query. (The API answers a page number its
schema allows past a list's last page with 404 and the list's range.)"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.scale_data import seed

pytestmark = pytest.mark.django_db

GARBLED = ["x", "-1", "0", "1.5", "1e3", "\uff12", "99999999999999999999999999", " ", "%00", "1;DROP TABLE x"]


def test_bad_page_numbers_and_cursors_answer_400_with_a_message(client, django_assert_max_num_queries):
    site = seed("small")
    bot = site.busiest.pk
    api = APIClient()
    for value in GARBLED:
        for url in ("/ladder/galaxy/", "/ladder/mothership/", f"/bots/{bot}/", f"/users/{site.owner.username}/"):
            param = "opponents" if url.startswith("/bots/") else "page"
            if not value.strip():
                assert client.get(url, {param: value}).status_code == 200  # empty: the first page
                continue
            with django_assert_max_num_queries(2):  # refused before the list is read (a session at most)
                response = client.get(url, {param: value})
            if value.strip():
                assert response.status_code == 400, (url, value)
                assert "whole number" in response.content.decode(), (url, value)
        for url in ("/api/ladder/galaxy/", "/api/ladder/mothership/", "/api/bots/"):
            response = api.get(url, {"page": value})
            if value.strip():
                assert response.status_code == 400, (url, value, response.content)
                assert "page" in response.json()["detail"], response.json()
        response = api.get("/api/matches/", {"page": value})
        if value.strip():
            detail = response.json()["detail"]  # not digits, or outside the schema's 1 to 10000
            assert response.status_code == 400 and detail.startswith(("page must be a whole number",
                                                                       "page must be between 1 and 10000")), detail
        for cursor in (value, f"o{value}", "n-5", "o99999999999999999999", "x123"):
            if not cursor.strip():
                continue
            with django_assert_max_num_queries(1):
                response = api.get("/api/matches/", {"cursor": cursor})
            assert response.status_code == 400, (cursor, response.content)
            assert response.json()["detail"].startswith("cursor: not one of this list's cursors")
            page = client.get("/matches/", {"cursor": cursor})
            assert page.status_code == 400 and "not one of this list" in page.content.decode()
    # past the last page: 400 naming the range on a page, the API's 404 (a page number its schema
    # allows, of a shorter list); a deep page number costs two index ranges at most (is the list longer
    # than page numbers reach? else its pages, counted up to that depth)
    assert "has 1 page" in client.get("/ladder/galaxy/", {"page": 7}).content.decode()
    past = api.get("/api/ladder/galaxy/", {"page": 7})
    assert past.status_code == 404 and "run from 1 to 1" in past.json()["detail"]
    with django_assert_max_num_queries(2):
        deep = api.get("/api/matches/", {"page": 5000})
    assert deep.status_code == 404
    assert deep.json()["detail"].startswith("page 5000 does not exist: this list's pages run from 1 to")
    beyond = api.get("/api/matches/", {"page": 10_001})  # past the schema's maximum: a 400
    assert beyond.status_code == 400 and "page must be between 1 and 10000" in beyond.json()["detail"]
    for size in ("0", "201", "x", "-3", "99999999999"):
        response = api.get("/api/matches/", {"page_size": size})
        assert response.status_code == 400 and "page_size" in response.json()["detail"]
    # a cursor past either end is an empty page, with a way back
    empty = api.get("/api/matches/", {"cursor": "o1"}).json()
    assert empty["results"] == [] and empty["next"] is None
    newest = api.get("/api/matches/", {"cursor": f"n{site.match.pk + 1000}"}).json()
    assert newest["results"] == [] and newest["previous"] is None
