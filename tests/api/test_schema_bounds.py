"""The API's schema states the bounds the site enforces, and the site keeps to them (issue 30): what
Schemathesis (`tests/live/test_api_fuzz.py`, every check) found, pinned without the fuzzer.

- `page` and `page_size` of every paged list: integers with the schema's minimum and maximum; a
  value outside them is a 400 naming the parameter (also `page_size` past 200, once shrunk to 200
  silently), a page within them past the list's last is a 404 with the list's range;
- a query parameter given twice (`?page=1&page=2`, an array where the schema says one value) is a
  400 on every path under /api/, before authentication;
- the match list's filters: enums, the version's and the cursor's patterns, as the site parses them;
- every operation documents 400 (the repeated parameter), 401, 414 and 429.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from armada_web.api.pagination import MAX_PAGE_SIZE
from armada_web.matches.listing import MAX_OFFSET
from armada_web.web.paging import MAX_PAGE

pytestmark = pytest.mark.django_db

#: The page-number lists (every one pages with api.pagination), with the user they need.
PAGED = ["/api/bots/", "/api/ladder/galaxy/", "/api/ladder/mothership/", "/api/seasons/", "/api/events/",
         "/api/tokens/"]


@pytest.fixture
def schema(db) -> dict[str, Any]:
    return APIClient().get("/api/schema/", {"format": "json"}).json()


def error(response: Any, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert set(data) == {"detail"} and data["detail"], data
    return str(data["detail"])


def query_parameters(schema: dict[str, Any], path: str, method: str = "get") -> dict[str, dict[str, Any]]:
    return {p["name"]: p["schema"] for p in schema["paths"][path].get(method, {}).get("parameters", [])
            if p["in"] == "query"}


def test_the_schema_states_the_bounds_of_every_page_number(schema):
    paged = [path for path, item in schema["paths"].items() if "page" in query_parameters(schema, path)]
    assert set(PAGED) | {"/api/bots/{id}/versions/", "/api/matches/", "/api/seasons/{slug}/standings/"} <= set(paged)
    for path in paged:
        params = query_parameters(schema, path)
        page_max = MAX_OFFSET if path == "/api/matches/" else MAX_PAGE
        assert params["page"] == {"type": "integer", "minimum": 1, "maximum": page_max}, path
        assert params["page_size"] == {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": 50}, path


@pytest.mark.parametrize("path", PAGED)
def test_page_numbers_outside_the_schemas_bounds_are_400s_and_past_the_last_404s(path, api):
    client = api()
    for value, words in (("0", "page must be between 1 and"), (str(MAX_PAGE + 1), f"between 1 and {MAX_PAGE}"),
                         ("last", "page must be a whole number"), ("x", "page must be a whole number")):
        assert words in error(client.get(path, {"page": value}), 400), (path, value)
    for value in ("0", str(MAX_PAGE_SIZE + 1), "x"):
        assert "page_size must be" in error(client.get(path, {"page_size": value}), 400), (path, value)
    assert client.get(path, {"page": 1, "page_size": MAX_PAGE_SIZE}).status_code == 200
    detail = error(client.get(path, {"page": MAX_PAGE}), 404)  # allowed by the schema, past this short list
    assert detail == f"page '{MAX_PAGE}' does not exist: this list's pages run from 1 to 1", path


def test_the_match_lists_page_numbers_reach_the_newest_10000_matches(db):
    client = APIClient()
    assert client.get("/api/matches/", {"page": 1}).json()["results"] == []  # an empty list: its one page
    # past the last page, within reach: a 404 (a trial: it was an empty 200, site.md says 404)
    assert error(client.get("/api/matches/", {"page": 3}), 404) == (
        "page 3 does not exist: this list's pages run from 1 to 1")  # as the other lists say it
    # deeper than page numbers reach, on a list this short: past its last too, not "follow next" (a trial)
    deep = client.get("/api/matches/", {"page": MAX_OFFSET // 50 + 1})  # page_size 50
    assert error(deep, 404) == f"page {MAX_OFFSET // 50 + 1} does not exist: this list's pages run from 1 to 1"
    assert "pages run from 1 to 1" in error(client.get("/api/matches/", {"page": MAX_OFFSET, "page_size": 1}), 404)
    assert "page must be between 1 and 10000" in error(client.get("/api/matches/", {"page": MAX_OFFSET + 1}), 400)
    assert "page_size" in error(client.get("/api/matches/", {"page_size": MAX_PAGE_SIZE + 1}), 400)
    assert "page must be a whole number" in error(client.get("/api/matches/", {"page": "null", "cursor": "n1"}), 400)


@pytest.mark.parametrize("query", ["page=1&page=2", "page_size=5&page_size=5", "game=galaxy&game=mothership",
                                   "cursor=o5&cursor=o6"])
def test_a_query_parameter_given_twice_is_a_400(query):
    client = APIClient()
    name = query.split("=")[0]
    for path in ("/api/bots/", "/api/matches/", "/api/ladder/galaxy/"):
        assert error(client.get(f"{path}?{query}"), 400) == f"give each query parameter once; repeated: {name}"
    assert client.get(f"/api/matches/?{query.split('&')[0]}").status_code == 200  # once: as before


def test_a_repeated_parameter_is_refused_before_authentication_and_pages_keep_theirs(db, client):
    assert "repeated: x" in error(APIClient().get("/api/me/?x=1&x=2"), 400)
    assert APIClient().get("/api/me/?x=1").status_code == 401
    assert client.get("/ladder/galaxy/?page=1&page=1").status_code == 200  # the site's pages: not the API's rule


def test_the_match_filters_state_what_the_site_takes(schema, api):
    params = query_parameters(schema, "/api/matches/")
    assert params["game"]["enum"] == ["galaxy", "mothership"]
    assert set(params["status"]["enum"]) == {"queued", "running", "finished", "failed", "void"}
    assert set(params["result"]["enum"]) == {"win", "draw", "loss"}
    assert "ranked" in params["kind"]["enum"] and "challenge" in params["kind"]["enum"]
    assert params["version"]["pattern"] == "^v?([1-9][0-9]{0,8})$"
    assert params["cursor"]["pattern"] == "^([on])([1-9][0-9]{0,18})$"
    client = APIClient()
    # a cursor the pattern allows, past the largest id: a position past every match (was a 400)
    for cursor in ("o9999999999999999999", "n9999999999999999999"):
        assert client.get("/api/matches/", {"cursor": cursor}).json()["results"] == []
    assert "cursor" in error(client.get("/api/matches/", {"cursor": "o0"}), 400)


def test_a_version_filter_takes_the_number_the_pattern_states(make_user, valid_version):
    version = valid_version(make_user("alice"), "alpha")
    client = APIClient()
    for value in ("1", "v1"):
        assert client.get("/api/matches/", {"bot": version.bot_id, "version": value}).status_code == 200
    for value in ("01", "v", "1.0", "0"):
        words = "version must be the bot's version number"
        assert words in error(client.get("/api/matches/", {"bot": version.bot_id, "version": value}), 400), value


def test_an_empty_query_parameter_is_one_not_given_as_the_schema_says(schema):
    client = APIClient()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    assert parameter.get("allowEmptyValue") is True, (method, path, parameter["name"])
    empty = {"page": "", "page_size": "", "game": "", "bot": "", "version": "", "cursor": "", "status": ""}
    assert client.get("/api/matches/", empty).json() == client.get("/api/matches/").json()
    assert client.get("/api/bots/", {"page": "", "page_size": "", "retired": ""}).json()["count"] == 0


def test_every_operation_documents_the_errors_any_request_may_get(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            assert {"400", "401", "414", "429"} <= set(operation["responses"]), (method, path)
            if "page" in query_parameters(schema, path, method):  # a page past the last
                assert "404" in operation["responses"], (method, path)


# -- bodies and filters: what the schema says, and nothing else ------------------------------------

def test_bodies_are_json_only_and_typed_as_the_schema_says(api, schema):
    client = api()
    bodies = {path: item["post"]["requestBody"]["content"] for path, item in schema["paths"].items()
              if "post" in item and "requestBody" in item["post"]}
    for path, content in bodies.items():  # (a form's fields are all strings: no typed body)
        expected = ["multipart/form-data"] if path == "/api/bots/{id}/versions/" else ["application/json"]
        assert list(content) == expected, path
    as_form = client.post("/api/bots/", {"name": "formbot", "game": "galaxy"}, format="multipart")
    assert error(as_form, 415).startswith("Unsupported media type")
    # DRF's CharField took 123 as "123", its IntegerField "7" as 7: the schema says string, integer
    assert "name: must be a string" in error(client.post("/api/bots/", {"name": 123, "game": "galaxy"},
                                                         format="json"), 400)
    made = client.post("/api/bots/", {"name": "fine", "game": "galaxy"}, format="json")
    assert made.status_code == 201
    assert "version: give the version as a JSON integer" in error(
        client.post(f"/api/bots/{made.json()['id']}/active/", {"version": "7"}, format="json"), 400)
    for body in ({"bot": [1], "opponent": 2}, {"bot": True, "opponent": 2}, {"bot": 2.5, "opponent": 2}):
        refused = client.post("/api/challenges/", body, format="json")
        assert error(refused, 400) == "give the bot as a bot's id (a number) or its name", body
    event = {"name": "cup", "game": "galaxy", "format": "round_robin"}
    for field, value, words in (("public", "yes", "public must be true or false"),
                                ("games_per_pair", "3", "games_per_pair must be a whole number (a JSON integer)"),
                                ("starts", 5, "starts must be text (a JSON string)"),
                                ("max_entrants", 1, "max_entrants must be a whole number from 2"),  # the service's
                                ("format", "swiss", "format must be one of"), ("name", " ", "needs a name")):
        assert words in error(client.post("/api/events/", {**event, field: value}, format="json"), 400), field
    assert client.post("/api/events/", {**event, "public": None}, format="json").status_code == 201
    assert error(client.post("/api/events/x/entries/", {"bot": "7"}, format="json"), 400) == (
        "give your bot's id as an integer")


def test_the_schema_types_the_bodies_it_takes(schema):
    components = schema["components"]["schemas"]
    challenge = components["ChallengeRequestRequest"]["properties"]
    assert challenge["bot"]["anyOf"][0] == {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
    event = components["EventRequestRequest"]["properties"]
    stated = event["format"].get("allOf", [event["format"]])[0]  # (drf-spectacular makes an enum a component)
    stated = components[stated["$ref"].rsplit("/", 1)[1]] if "$ref" in stated else stated
    assert stated["enum"] == ["round_robin", "ladder"] and event["public"]["nullable"] is True
    assert event["max_entrants"]["minimum"] == 2 and event["games_per_pair"]["maximum"] >= 1
    assert components["EntryRequestRequest"]["properties"]["bot"]["type"] == "integer"


def test_a_boolean_filter_takes_true_or_false_only(make_user):
    from armada_web.bots import services

    owner = make_user("owner")
    services.create_bot(user=owner, name="kept", game="galaxy")
    client = APIClient()
    assert client.get("/api/bots/", {"retired": "false"}).json()["count"] == 1
    assert client.get("/api/bots/", {"retired": "true"}).json()["count"] == 0
    for value in ("null", "yes", "2"):  # django-filter read these as "no filter"
        assert "retired: must be true or false" in error(client.get("/api/bots/", {"retired": value}), 400), value


def test_a_taken_name_or_a_full_quota_is_a_409_the_schema_states(api, schema, settings):
    client = api()
    assert client.post("/api/bots/", {"name": "taken", "game": "galaxy"}, format="json").status_code == 201
    assert "is taken" in error(client.post("/api/bots/", {"name": "TAKEN", "game": "galaxy"}, format="json"), 409)
    settings.ARMADA = settings.ARMADA.with_(max_bots_per_game=1)
    assert "the limit is 1" in error(client.post("/api/bots/", {"name": "second", "game": "galaxy"}, format="json"),
                                     409)
    assert "409" in schema["paths"]["/api/bots/"]["post"]["responses"]
    assert "409" in schema["paths"]["/api/bots/{id}/active/"]["post"]["responses"]


def test_what_reads_the_storage_answers_503_as_the_schema_says(schema, make_user, valid_version, monkeypatch):
    """An audit of the schema against the API: the downloads, a match with its owner's log and a
    seat's requests answer 503 when the storage does not answer, which their schema did not say."""
    from django.core.files.storage import FileSystemStorage

    from armada_web.matches.services import create_match
    from tests.support.seasons_helpers import record_result

    alice = make_user("alice")
    mine, theirs = valid_version(alice, "alpha"), valid_version(make_user("bob"), "beta")
    match = create_match(game="galaxy", first=mine, second=theirs)
    record_result(match, 1)
    client = APIClient()
    client.force_authenticate(alice)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(FileSystemStorage, "open", broken)  # (the tests' storage is one)
    for url, path in ((f"/api/versions/{mine.pk}/source/", "/api/versions/{id}/source/"),
                      (f"/api/matches/{match.pk}/replay/", "/api/matches/{id}/replay/"),
                      (f"/api/matches/{match.pk}/", "/api/matches/{id}/"),
                      (f"/api/matches/{match.pk}/requests/?seat=1", "/api/matches/{id}/requests/"),
                      ("/api/replays/?game=galaxy", "/api/replays/")):
        detail = error(client.get(url), 503)
        assert "storage is unavailable" in detail and "Input/output" not in detail, url  # (the cause: logged)
        assert "503" in schema["paths"][path]["get"]["responses"], path
    assert "503" in schema["paths"]["/api/versions/{id}/replay/"]["get"]["responses"]


def test_every_json_body_may_be_too_large_or_not_json_as_the_schema_says(schema, api):
    """The same audit: five operations with a JSON body (teams, a bot's move) did not list 413 and
    415, which every body gets past 64 KiB or as another media type."""
    taking = [(method, path) for path, item in schema["paths"].items() for method, operation in item.items()
              if "requestBody" in operation]
    assert ("post", "/api/teams/") in taking and ("post", "/api/bots/{id}/move/") in taking
    for method, path in taking:
        assert {"413", "415"} <= set(schema["paths"][path][method]["responses"]), (method, path)
    client = api()
    assert error(client.post("/api/teams/", "name=crew", content_type="text/plain"), 415).startswith(
        "Unsupported media type")
    assert "request body too large" in error(client.post("/api/teams/", {"name": "x" * 100_000}, format="json"), 413)


def test_every_bot_the_api_gives_names_its_team_and_the_schema_says_so(schema, api, make_user, valid_version):
    """Issue 26: "every bot in the API carries "team": {"id", "name"}"; the same audit found the
    bots of event tables and season standings without it (the row had it), and a match's players'
    `bot` and `rating_before`/`rating_after` untyped in the schema."""
    components = schema["components"]["schemas"]

    def resolved(field: dict[str, Any]) -> dict[str, Any]:
        ref = (field.get("allOf") or [field])[0].get("$ref", "")
        return components[ref.rsplit("/", 1)[1]] if ref else field

    bots = {name: resolved(item["properties"]["bot"]) for name, item in components.items()
            if "bot" in item.get("properties", {}) and "properties" in resolved(item["properties"]["bot"])}
    assert {"Player", "PlayerWithLog", "TableRow", "StandingRow"} <= set(bots), sorted(bots)
    for name, bot in bots.items():
        assert {"id", "name", "team"} <= set(bot["properties"]), name
    assert set(resolved(components["PlayerWithLog"]["properties"]["rating_before"])["properties"]) == {"mu", "sigma"}
    owner = make_user("olga")
    made = api(owner).post("/api/events/", {"name": "Club", "game": "galaxy", "format": "round_robin"},
                           format="json").json()
    bot = valid_version(owner, "olga-bot").bot
    row = api(owner).post(f"/api/events/{made['slug']}/entries/", {"bot": bot.pk}, format="json").json()
    table = api(owner).get(f"/api/events/{made['slug']}/").json()["table"]
    assert table[0]["bot"]["team"] == table[0]["team"] == {"id": bot.team_id, "name": "olga"}, (row, table)


def test_a_body_of_another_media_type_is_told_what_to_send(api, make_user):
    """An audit of bad input: a 415 said only `Unsupported media type "text/plain" in request.`, not
    what the operation takes; it now says how to send the body (JSON, or an upload's multipart form)."""
    client = api()
    said = error(client.post("/api/teams/", "name=crew", content_type="text/plain"), 415)
    assert said == ('Unsupported media type "text/plain" in request: send the body as a JSON object, with the '
                    "header Content-Type: application/json")
    bot = client.post("/api/bots/", {"name": "zipped", "game": "galaxy"}, format="json").json()
    said = error(client.post(f"/api/bots/{bot['id']}/versions/", b"PK\x03\x04", content_type="application/zip"),
                 415)
    assert said.startswith('Unsupported media type "application/zip" in request: send the bot as a multipart '
                           'form field named "file"'), said
    said = error(client.post(f"/api/bots/{bot['id']}/versions/", b"--x\r\n", content_type="multipart/form-data"),
                 400)  # a Content-Type header set by hand, without its boundary
    assert said.startswith("Multipart form parse error") and "let your HTTP library write the form" in said, said


def test_an_unknown_format_is_named_not_a_bare_not_found(api):
    """An audit of bad input: `/api/bots/{id}/?format=xml` of a bot that exists answered 404 "Not found."
    (DRF's content negotiation), as if the bot did not. The 404 stays; its detail says what is wrong."""
    client = api()
    bot = client.post("/api/bots/", {"name": "formats", "game": "galaxy"}, format="json").json()
    said = error(client.get(f"/api/bots/{bot['id']}/?format=xml"), 404)
    assert said == "no format 'xml' here: ?format= takes json or api (or leave it out, or send an Accept header)"
    assert client.get(f"/api/bots/{bot['id']}/?format=json").status_code == 200
    assert error(client.get("/api/bots/999999/"), 404) == "no such bot"  # (other 404s keep their words)
