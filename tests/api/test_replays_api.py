"""`GET /api/replays/`: the public replays of finished ranked matches as a dataset (issue 25):
what is listed and what is not, the rows' fields, filters, cursor pages, refusals, the replay's
size and checksum (kept when saved, else computed once), the per-user throttle and the schema."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import pytest
from rest_framework.test import APIClient

from tests.support.replays import public_match

pytestmark = [pytest.mark.django_db]

ROW = {"match", "seed", "players", "scores", "result", "size", "sha256", "url"}


@pytest.fixture
def pair(make_user, valid_version):
    return valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo", starter="random")


def listed(client, query: str = "") -> list[int]:
    response = client.get(f"/api/replays/?{query}")
    assert response.status_code == 200, response.content
    return [row["match"] for row in response.json()["results"]]


def test_lists_only_public_replays_newest_first_with_what_a_download_checks(pair):
    a, b = pair
    old = public_match(a, b, ratings=((25.0, 3.0), (30.0, 2.0)))
    new = public_match(b, a, seed=9)
    public_match(a, b, kind="challenge")  # unranked: not in the dataset
    public_match(a, b, status="running")
    gone = public_match(a, b)
    type(gone).objects.filter(pk=gone.pk).update(replay="")  # pruned: its replay is no longer public
    client = APIClient()
    body = client.get("/api/replays/").json()
    assert set(body) == {"results", "next"} and body["next"] is None
    assert [row["match"] for row in body["results"]] == [new.pk, old.pk]
    row = body["results"][1]
    assert set(row) == ROW  # nothing else: no sources, no logs
    assert row["seed"] == 3 and row["players"] == ["alpha", "bravo"]
    assert row["scores"] == [pytest.approx(16.0), pytest.approx(24.0)]  # mu - 3 sigma before the match
    assert row["result"] == old.outcome and row["url"] == f"http://testserver/api/matches/{old.pk}/replay/"
    served = client.get(row["url"])
    assert served.status_code == 200 and served["Content-Type"] == "application/gzip"
    assert (row["size"], row["sha256"]) == (len(served.content), hashlib.sha256(served.content).hexdigest())


def test_filters_game_min_score_on_the_lower_seat_and_since(pair, make_user, valid_version):
    a, b = pair
    now = dt.datetime.now(dt.UTC)
    strong = public_match(a, b, ratings=((40.0, 2.0), (36.0, 2.0)), finished=now - dt.timedelta(days=1))  # 34, 30
    mixed = public_match(a, b, ratings=((40.0, 2.0), (20.0, 2.0)), finished=now - dt.timedelta(days=3))  # 34, 14
    unrated = public_match(a, b, ratings=((40.0, 2.0), None), finished=now)
    c = valid_version(make_user("carol"), "charlie", game="mothership", orders={})
    d = valid_version(make_user("dave"), "delta", game="mothership", orders={})
    other = public_match(c, d, ratings=(None, None))
    client = APIClient()
    assert listed(client) == [other.pk, unrated.pk, mixed.pk, strong.pk]
    assert listed(client, "game=galaxy") == [unrated.pk, mixed.pk, strong.pk]
    assert listed(client, "game=mothership") == [other.pk]
    assert listed(client, "game=galaxy&min_score=30") == [strong.pk]  # the lower of the two decides
    assert listed(client, "min_score=30.5") == []
    assert listed(client, "min_score=14") == [mixed.pk, strong.pk]  # an unrated seat never passes
    assert listed(client, "min_score=-1e6") == [mixed.pk, strong.pk]
    since = (now - dt.timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert listed(client, f"game=galaxy&since={since}") == [unrated.pk, strong.pk]
    assert listed(client, f"since={(now - dt.timedelta(days=5)).date().isoformat()}&min_score=14") == [
        mixed.pk, strong.pk]


def test_cursor_pages_follow_next_with_the_filters(pair):
    a, b = pair
    made = [public_match(a, b, ratings=((30.0, 1.0), (30.0, 1.0))).pk for _ in range(5)]
    public_match(a, b, ratings=((10.0, 1.0), (30.0, 1.0)))  # below min_score: on no page
    client = APIClient()
    seen, url, pages = [], "/api/replays/?game=galaxy&min_score=25&page_size=2", 0
    while url:
        body = client.get(url).json()
        seen += [row["match"] for row in body["results"]]
        url, pages = body["next"], pages + 1
        if url:
            assert "min_score=25" in url and "game=galaxy" in url and "page_size=2" in url
    assert seen == sorted(made, reverse=True) and pages == 3


@pytest.mark.parametrize(("query", "detail"), [
    ("game=chess", r"game must be one of galaxy, mothership; got 'chess'"),
    ("min_score=lots", r"min_score must be a number .*'lots'"),
    ("min_score=nan", r"min_score must be a number .*'nan'"),
    ("min_score=1e400", r"min_score must be a number .*'1e400'"),
    ("min_score=-1e10", r"min_score must be from -1,000,000,000 to 1,000,000,000 .*'-1e10'"),
    ("since=yesterday", r"since must be a date and time in ISO 8601, e.g. 2026-03-01T12:00:00Z$"),
    ("since=2026-12-06T00:57:00+01:00",
     r"since must be a date and time in ISO 8601.* \(a \+ in a URL's query reads as a space: send it as %2B\)"),
    ("since=0001-01-01T00:00:00%2B01:00", r"since is out of range: '0001-01-01T00:00:00\+01:00'"),
    ("since=9999-12-31T23:59:59-01:00", r"since is out of range: .*"),
    ("cursor=n5", r"cursor: not one of this list's cursors.*"),
    ("page_size=0", r"page_size must be a whole number from 1 to 200"),
    ("page_size=201", r"page_size must be a whole number from 1 to 200"),
])
def test_bad_parameters_are_clear_400s(db, query, detail):
    response = APIClient().get(f"/api/replays/?{query}")
    assert response.status_code == 400
    assert re.fullmatch(detail, response.json()["detail"]), response.json()


def test_an_older_replays_size_and_checksum_are_computed_once_then_kept(pair, monkeypatch):
    from armada_web.matches import storage
    from armada_web.matches.models import Match

    a, b = pair
    old = public_match(a, b, keep_facts=False)
    fresh = public_match(a, b, keep_facts=False)
    client = APIClient()
    data = client.get(f"/api/matches/{fresh.pk}/replay/").content  # a download keeps them too
    assert Match.objects.get(pk=fresh.pk).replay_sha256 == hashlib.sha256(data).hexdigest()
    first = client.get("/api/replays/").json()["results"]
    kept = Match.objects.get(pk=old.pk)
    assert (kept.replay_size, kept.replay_sha256) == (first[1]["size"], first[1]["sha256"])
    assert first[1]["size"] == len(storage.read(kept.replay.name))

    def no_reads(name):
        raise AssertionError(f"the list read {name} from storage")

    monkeypatch.setattr(storage, "read", no_reads)
    assert client.get("/api/replays/").json()["results"] == first


def test_a_page_costs_the_same_queries_whatever_its_rows(pair):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    a, b = pair
    client = APIClient()

    def queries() -> int:
        with CaptureQueriesContext(connection) as seen:
            assert client.get("/api/replays/?game=galaxy&min_score=0").status_code == 200
        return len(seen)

    public_match(a, b)
    few = queries()
    for _ in range(4):
        public_match(a, b)
    assert queries() == few <= 4  # the page's ids, its matches, their seats (and the session's user, if any)


def test_a_replay_gone_from_storage_is_left_out(pair):
    from django.core.files.storage import default_storage

    a, b = pair
    kept = public_match(a, b)
    lost = public_match(a, b, keep_facts=False)
    default_storage.delete(lost.replay.name)
    assert listed(APIClient()) == [kept.pk]


def test_downloads_are_throttled_per_user(pair, api, make_user, monkeypatch):
    from armada_web.api.throttles import DatasetThrottle

    a, b = pair
    match = public_match(a, b)
    monkeypatch.setattr(DatasetThrottle, "rate", "3/min", raising=False)
    monkeypatch.setattr(DatasetThrottle, "num_requests", 3, raising=False)
    monkeypatch.setattr(DatasetThrottle, "duration", 60, raising=False)
    alice, bob = api(make_user("ann")), api(make_user("ben"))
    paths = ["/api/replays/", f"/api/matches/{match.pk}/replay/", "/api/replays/", "/api/replays/"]
    assert [alice.get(p).status_code for p in paths] == [200, 200, 200, 429]
    refused = alice.get(f"/api/matches/{match.pk}/replay/")
    assert refused.status_code == 429 and re.fullmatch(r"too many requests; try again in \d+ s",
                                                       refused.json()["detail"])
    assert bob.get("/api/replays/").status_code == 200  # each user has a budget of their own
    assert alice.get("/api/matches/").status_code == 200  # other lists are not counted


def test_a_request_the_dataset_refuses_is_not_counted_in_the_user_s_budget(pair, api, make_user, monkeypatch):
    """DRF asks every throttle; a request the dataset's refuses is taken back from the user's too."""
    from armada_web.api.throttles import DatasetThrottle, UserThrottle

    for throttle, limit in ((DatasetThrottle, 3), (UserThrottle, 8)):
        monkeypatch.setattr(throttle, "rate", f"{limit}/min", raising=False)
        monkeypatch.setattr(throttle, "num_requests", limit, raising=False)
        monkeypatch.setattr(throttle, "duration", 60, raising=False)
    a, b = pair
    public_match(a, b)
    client = api(make_user("ann"))
    assert [client.get("/api/replays/").status_code for _ in range(8)] == [200] * 3 + [429] * 5
    assert [client.get("/api/matches/").status_code for _ in range(5)] == [200] * 5  # 3 of 8 used
    assert client.get("/api/matches/").status_code == 429


def test_the_schema_describes_the_list(db):
    schema = APIClient().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/replays/"]["get"]
    parameters = {p["name"]: p["schema"] for p in operation["parameters"]}
    assert set(parameters) >= {"game", "min_score", "since", "cursor", "page_size"}
    assert parameters["min_score"]["type"] == "number" and parameters["since"]["format"] == "date-time"
    assert (parameters["page_size"]["minimum"], parameters["page_size"]["maximum"]) == (1, 200)
    assert {"200", "400", "429"} <= set(operation["responses"])
    row = schema["components"]["schemas"]["ReplayRow"]
    assert set(row["properties"]) == ROW
