"""The API's lists of events and teams cost the same queries however many rows they hold (a code
review found one count of entries per event and one query of members per team)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def test_the_event_list_counts_entries_in_one_query(make_user, api, armada, valid_version):
    armada(events_per_day=100)
    olga = make_user("olga")
    owner = api(olga)
    made: list[str] = []

    def make(count: int) -> None:
        for _ in range(count):
            made.append(f"Cup {len(made)}")
            answer = owner.post("/api/events/", {"name": made[-1], "game": "galaxy", "format": "round_robin",
                                                 "public": True}, format="json")
            assert answer.status_code == 201, answer.json()

    make(2)
    few = _queries(owner, "/api/events/")
    make(6)
    slug = owner.get("/api/events/").json()["results"][0]["slug"]
    bot = valid_version(olga, "Olga").bot
    assert owner.post(f"/api/events/{slug}/entries/", {"bot": bot.pk}, format="json").status_code == 201
    assert _queries(owner, "/api/events/") == few
    entries = {e["slug"]: e["entries"] for e in owner.get("/api/events/").json()["results"]}
    assert len(entries) == 8 and entries[slug] == 1 and sum(entries.values()) == 1


def test_the_team_list_reads_members_in_one_query(make_user, api, armada):
    armada(teams_per_user=20)
    olga, nils = make_user("olga"), make_user("nils")
    client = api(olga)
    made = [client.post("/api/teams/", {"name": f"crew {i}"}, format="json").json() for i in range(2)]
    few = _queries(client, "/api/teams/")
    for i in range(2, 6):
        assert client.post("/api/teams/", {"name": f"crew {i}"}, format="json").status_code == 201
    assert api(nils).post(f"/api/teams/{made[0]['id']}/join/", {"key": made[0]["join_key"]},
                          format="json").status_code == 200
    assert _queries(client, "/api/teams/") == few
    members = {t["name"]: [m["username"] for m in t["members"]] for t in client.get("/api/teams/").json()}
    assert members["crew 0"] == ["olga", "nils"] and members["crew 5"] == ["olga"] and members["olga"] == ["olga"]


def test_the_events_page_comes_in_pages(make_user, api, armada, client, monkeypatch):
    from armada_web.pages import event_views

    armada(events_per_day=100)
    monkeypatch.setattr(event_views, "EVENTS_PER_PAGE", 2)
    olga = make_user("olga")
    owner = api(olga)
    for number in range(5):
        assert owner.post("/api/events/", {"name": f"Cup {number}", "game": "galaxy", "format": "round_robin",
                                           "public": number != 4}, format="json").status_code == 201
    pages = [client.get(f"/events/?page={n}").content.decode() for n in (1, 2)]
    assert ">Cup 3<" in pages[0] and ">Cup 2<" in pages[0] and ">Cup 1<" in pages[1] and ">Cup 0<" in pages[1]
    assert "Cup 4" not in "".join(pages)  # a private event, not shown to a visitor
    assert "page=2" in pages[0] and client.get("/events/?page=3").status_code == 400
    client.force_login(olga)
    assert ">Cup 4<" in client.get("/events/").content.decode()
