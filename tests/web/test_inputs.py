"""No input answers 500 (issue 20): each input the issue lists, and its neighbours, gets a 400 or
404 with a `detail` (the API) or the site's own page (the pages), never a traceback.

Ids are parsed once (`armada_web.web.inputs`): the `<id:...>` converter in every URL, `IdField` in
the API, `parse_id` in the pages' forms; JSON bodies by `api.parsers.LimitedJSONParser`.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.converters import IntConverter

from armada_web.api.parsers import nesting_depth
from armada_web.web.errors import Invalid
from armada_web.web.inputs import MAX_ID, IdConverter, parse_id

pytestmark = pytest.mark.django_db

#: Past 64 bits: the database driver overflowed (OverflowError, a 500) before.
BIG = "99999999999999999999999"


@pytest.fixture
def client() -> Client:
    """A test client that answers a server error as a response (500) instead of raising it."""
    return Client(raise_request_exception=False)


def detail_of(response) -> str:
    body = response.json()
    assert list(body) == ["detail"], body
    return body["detail"]


# -- ids in paths ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    f"/api/ladder/mothership/{BIG}/1/replay/", f"/api/ladder/mothership/1/{BIG}/replay/",
    f"/api/matches/{BIG}/", f"/api/matches/{BIG}/replay/", f"/api/bots/{BIG}/", f"/api/versions/{BIG}/",
    f"/api/versions/{BIG}/source/", f"/api/tokens/{BIG}/", f"/api/bots/{MAX_ID + 1}/", "/api/bots/0/",
    "/api/bots/%C2%B2/", "/api/bots/-1/",
])
def test_an_id_past_63_bits_or_not_an_id_in_an_api_path_is_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "no such API path" in detail_of(response)


@pytest.mark.parametrize("path", [
    f"/ladder/mothership/{BIG}/", f"/ladder/mothership/{BIG}/1/", f"/matches/{BIG}/", f"/bots/{BIG}/",
    f"/bots/1/versions/{BIG}/", f"/bots/{BIG}/versions/1/source/", "/users/%00/", "/users/a%2Fb/", "/bots/%C2%B2/",
])
def test_an_id_past_63_bits_in_a_page_path_is_the_sites_404_page(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert b"Page not found" in response.content or b"not found" in response.content.lower()
    assert b"Traceback" not in response.content


def test_the_largest_id_is_still_an_id(client):
    assert client.get(f"/api/bots/{MAX_ID}/").json() == {"detail": "no such bot"}


def test_no_url_of_the_site_uses_the_int_converter():
    """Every id in a URL goes through `<id:...>` (an int converter would take 64-bit overflows)."""
    def walk(patterns, prefix=""):
        for pattern in patterns:
            converters = getattr(pattern.pattern, "converters", {})
            assert not any(isinstance(c, IntConverter) for c in converters.values()), f"{prefix}{pattern.pattern}"
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, f"{prefix}{pattern.pattern}")
            else:
                assert isinstance(pattern, URLPattern)

    walk(get_resolver().url_patterns)
    ids = [c for p in get_resolver().url_patterns if isinstance(p, URLResolver)
           for q in p.url_patterns for c in getattr(q.pattern, "converters", {}).values()]
    assert sum(isinstance(c, IdConverter) for c in ids) >= 15


def test_parse_id_takes_ascii_digits_and_ints_in_range_only():
    assert parse_id("7") == 7 and parse_id(MAX_ID) == MAX_ID and parse_id(str(MAX_ID)) == MAX_ID
    for bad in ("²", "٣", " 7", "7 ", "+7", "-1", "0", "1e3", "1.0", BIG, str(MAX_ID + 1), True, 1.0, None, [1], 0):
        with pytest.raises(Invalid):
            parse_id(bad)


# -- query parameters ------------------------------------------------------------------------------

@pytest.mark.parametrize(("query", "words"), [
    # a bot is an id or a name (docs/site.md, "Filters"): digits past 63 bits name no bot, `²` no name
    (f"bot={BIG}", f"bot: no bot has id {BIG[:20]}... ({len(BIG)} digits)"),  # not another id, cut (a trial)
    ("bot=²", "bot: no bot is named"), ("bot=٣", "bot: no bot is named"),
    ("bot=x", "bot: no bot is named 'x'"), ("game=chess", "game"), ("status=%00", "status"),
    ("bot=%00%0F", "control character"),  # (PostgreSQL: a 500)
    ("opponent=x", "give bot too"), ("opponent=a%00", "give bot too"),  # (a trial: "no bot is named 'x'")
    ("page=²", "page"), ("page=0", "page"), (f"page={BIG}", "page"), ("page_size=٣", "page_size"),
    ("page_size=0", "page_size"), ("page_size=x", "page_size"),
])
def test_a_bad_filter_or_page_of_the_match_list_is_a_400(client, query, words):
    response = client.get(f"/api/matches/?{query}")
    assert response.status_code == 400
    assert words in detail_of(response)


@pytest.mark.parametrize("path", ["/api/bots/?page=²", "/api/bots/?game=%00",
                                  "/api/ladder/galaxy/?page_size=-1", "/api/ladder/mothership/?page=x"])
def test_other_lists_refuse_bad_parameters_the_same_way(client, path):
    response = client.get(path)
    assert response.status_code == 400
    assert detail_of(response)


@pytest.mark.parametrize("value", ["%", "100%", "%s", "%(x)s", "yes"])
def test_a_bad_boolean_filter_is_a_400_naming_it_even_with_a_percent_sign(client, value):
    """django-filter formats each refusal with `message % params`: a `%` the refusal repeats was a TypeError."""
    response = client.get("/api/bots/", {"retired": value})
    assert response.status_code == 400
    assert detail_of(response) == f"retired: must be true or false; got {value!r}"


def test_a_page_past_the_last_is_a_404_naming_the_range(client):
    response = client.get("/api/bots/?page=7")  # a page number the schema allows, of a list that is shorter
    assert response.status_code == 404 and "pages run from 1 to 1" in detail_of(response)


@pytest.mark.parametrize("query", ["q=%00", "q=a%01b", "q=a%C2%9Bb"])  # U+009B: a C1 control, a terminal's escape
def test_a_control_character_in_a_ladder_search_is_refused_with_a_page(client, query):
    response = client.get(f"/ladder/galaxy/?{query}")
    assert response.status_code == 400
    assert b"control character" in response.content


def test_a_page_number_of_the_pages_that_is_not_a_number_is_a_400_page(client):
    response = client.get("/ladder/galaxy/?page=%C2%B2")
    assert response.status_code == 400 and b"whole number" in response.content


# -- bodies ---------------------------------------------------------------------------------------

DEEP = "[" * 10_000 + "]" * 10_000


@pytest.mark.parametrize("path", ["/api/tokens/", "/api/challenges/", "/api/bots/"])
def test_a_deeply_nested_json_body_is_a_400_not_a_recursion_error(client, api, path):
    signed_in = api()
    signed_in.raise_request_exception = False
    response = (client if path == "/api/tokens/" else signed_in).post(path, DEEP, content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply: 10000 levels" in detail_of(response)


def test_a_json_body_past_the_size_limit_is_a_413(client, armada):
    armada(api_json_max_bytes=1000)
    response = client.post("/api/tokens/", '{"username": "' + "a" * 2000 + '"}', content_type="application/json")
    assert response.status_code == 413
    assert "more than 1000 bytes" in detail_of(response)


def test_nesting_depth_ignores_brackets_inside_strings():
    assert nesting_depth(b'{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert nesting_depth(b'"\\"[[["') == 0
    assert nesting_depth(b"7") == 0


@pytest.mark.parametrize("body", ['{"bot": 99999999999999999999999, "opponent": 1}', '{"bot": "", "opponent": 1}',
                                  '{"bot": "a\\u0000b", "opponent": 1}',
                                  '{"bot": true, "opponent": 1}', '{"bot": 1.5, "opponent": 1}', '[1, 2]', '"x"',
                                  '{"bot": 1e400, "opponent": 1}', '{"bot": NaN, "opponent": 1}'])
def test_a_challenge_with_a_bad_id_is_a_400(api, body):
    client = api()
    client.raise_request_exception = False
    response = client.post("/api/challenges/", body, content_type="application/json")
    assert response.status_code == 400
    assert detail_of(response)


@pytest.mark.parametrize("version", ["²", BIG, True, "", None, [1]])
def test_choosing_the_active_version_with_a_bad_id_is_a_400(api, valid_version, make_user, version):
    owner = make_user("owner")
    bot = valid_version(owner, "pinner").bot
    client = api(owner)
    client.raise_request_exception = False
    response = client.post(f"/api/bots/{bot.pk}/active/", {"version": version}, format="json")
    assert response.status_code == 400
    assert "version" in detail_of(response)


def test_the_active_version_page_form_refuses_a_bad_id_with_a_message(valid_version, make_user):
    owner = make_user("owner")
    bot = valid_version(owner, "pinner").bot
    client = Client(raise_request_exception=False)
    client.force_login(owner)
    response = client.post(f"/bots/{bot.pk}/active/", {"version": "²"}, follow=True)
    assert response.status_code == 200
    assert b"whole number from 1" in response.content


def test_a_body_of_invalid_utf8_is_a_400(client):
    response = client.post("/api/tokens/", b'{"username": "\xff"}', content_type="application/json")
    assert response.status_code == 400 and detail_of(response)


#: JSON escapes the database cannot store: NUL (PostgreSQL refuses it in text) and a lone surrogate
#: (not UTF-8: psycopg cannot encode it, nor can the JSON renderer of an error that repeats it).
UNSTORABLE = ["a\\u0000b", "\\ud800x", "x\\udfff"]


@pytest.mark.parametrize("text", UNSTORABLE)
def test_an_event_name_with_nul_or_a_lone_surrogate_is_a_400(api, text):
    client = api()
    client.raise_request_exception = False
    response = client.post("/api/events/", '{"name": "' + text + '", "game": "galaxy", "format": "round_robin"}',
                           content_type="application/json")
    assert response.status_code == 400
    assert "name" in detail_of(response)


@pytest.mark.parametrize("field", ["users", "team_names"])
@pytest.mark.parametrize("text", UNSTORABLE)
def test_an_invitation_naming_nul_or_a_lone_surrogate_is_a_400(api, text, field):
    client = api()
    client.raise_request_exception = False
    slug = client.post("/api/events/", {"name": "ev", "game": "galaxy", "format": "round_robin"},
                       format="json").json()["slug"]
    response = client.post(f"/api/events/{slug}/invitations/", '{"' + field + '": ["' + text + '"]}',
                           content_type="application/json")
    assert response.status_code == 400
    assert field in detail_of(response)


@pytest.mark.parametrize("field", ["starts", "ends"])
@pytest.mark.parametrize("when", ["2030-01-01T00:00:00+20:00", "2030-01-01T00:00:00-16:00",
                                  "9999-12-31T23:59:59-23:59"])
def test_an_event_time_with_an_offset_postgresql_cannot_hold_is_taken_or_refused(api, make_user, field, when):
    """ISO 8601 (and Python) allow offsets to +-23:59, PostgreSQL to +-15:59: the time is stored in UTC,
    and one whose UTC is past year 9999 is a 400, on the API and the event form alike."""
    from armada_web.events.models import Event

    owner = make_user("owner")
    client = api(owner)
    client.raise_request_exception = False
    body = {"name": "far", "game": "galaxy", "format": "round_robin", field: when}
    response = client.post("/api/events/", body, format="json")
    page = Client(raise_request_exception=False)
    page.force_login(owner)
    form = page.post("/events/new/", {**body, "name": "far too", "games_per_pair": 1})  # (one open event a name)
    if when.startswith("9999"):
        assert response.status_code == 400 and field in detail_of(response)
        assert form.status_code == 400 and b"out of range" in form.content and not Event.objects.exists()
    else:
        assert response.status_code == 201, response.content
        assert form.status_code == 302
        assert Event.objects.filter(**{field + "__isnull": False}).count() == 2


@pytest.mark.parametrize("body", ['{"name": "zzz", "game": "\\ud800x"}', '{"name": "zzz", "game": "\\udfff"}'])
def test_a_refusal_that_repeats_a_lone_surrogate_is_a_400_not_a_500(api, body):
    client = api()
    client.raise_request_exception = False
    response = client.post("/api/bots/", body, content_type="application/json")
    assert response.status_code == 400
    assert "game" in detail_of(response)


def test_removing_a_member_named_with_nul_on_the_team_page_is_a_message(make_user):
    from armada_web.teams.services import create_team

    owner = make_user("owner")
    team = create_team(user=owner, name="crew")
    client = Client(raise_request_exception=False)
    client.force_login(owner)
    response = client.post(f"/teams/{team.pk}/remove/", {"username": "a\x00b"}, follow=True)
    assert response.status_code == 200
    assert b"not a member" in response.content or b"username" in response.content


@pytest.mark.parametrize("season", ["a\x00b", "\x00"])
def test_the_integrity_report_of_a_season_slug_with_nul_is_a_404(make_user, season):
    staff = make_user("staff", is_staff=True)
    client = Client(raise_request_exception=False)
    client.force_login(staff)
    assert client.get("/staff/integrity/", {"season": season}).status_code == 404
    response = client.post("/staff/integrity/disqualify/", {"season": season, "username": "staff", "reason": "r"})
    assert response.status_code in (302, 404), response.status_code


# -- the Authorization header ----------------------------------------------------------------------

@pytest.mark.parametrize("header", ["Token \xe9\xe9", "Token \xff\xff", "Token abc\xff", "token \xff", "Token abc\x00",
                                    "Token \x00", "Token \x7f\x01"])
@pytest.mark.parametrize("path", ["/api/me/", "/api/bots/", "/api/matches/", "/api/version/"])
def test_a_token_of_latin1_or_0xff_bytes_is_a_401(client, path, header):
    response = client.get(path, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert detail_of(response) == "Invalid token."


# -- the pages without DEBUG ------------------------------------------------------------------------

def test_an_unknown_page_is_the_sites_404_page_without_technical_details(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    text = response.content.decode()
    assert "URLconf" not in text and "DEBUG = True" not in text
    assert 'href="/"' in text


# -- the schema lists what each operation answers ----------------------------------------------------

def test_every_operation_lists_its_errors_with_the_detail_body():
    from rest_framework.test import APIClient

    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    assert schema["components"]["schemas"]["Error"]["required"] == ["detail"]
    operations = [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]
    assert len(operations) >= 20 and not [p for p, _m, _o in operations if "{format}" in p]
    for path, method, op in operations:
        codes = set(op["responses"])
        assert {"401", "414", "429"} <= codes, (path, method, sorted(codes))
        if "{" in path:
            assert "404" in codes, (path, method)
        if method in ("post", "delete"):
            assert "403" in codes, (path, method)
        for code in codes - {"200", "201", "204"}:
            body = op["responses"][code]["content"]["application/json"]["schema"]
            assert body == {"$ref": "#/components/schemas/Error"}, (path, method, code)
        for parameter in op.get("parameters", []):
            if parameter["in"] == "path" and parameter["name"] in ("id", "a", "b"):
                assert parameter["schema"] == {"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_ID}
