"""Who may do what through the API (and the matching pages): the permission matrix of every
write, what an anonymous visitor reads, token authentication, error bodies, pagination, the
OpenAPI schema and the docs page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.forms.models import model_to_dict
from django.test import Client
from knox.crypto import hash_token
from rest_framework.test import APIClient

from armada_web.accounts.models import ApiToken
from armada_web.accounts.services import create_token
from armada_web.bots import activation, services
from armada_web.bots.models import Bot, BotVersion, VersionStatus

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password-42"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def owner(make_user):
    return make_user("owner")


@pytest.fixture
def stranger(make_user):
    return make_user("stranger")


@pytest.fixture
def bot(owner) -> Bot:
    """A bot with two valid versions (v2 active) and stored archives."""
    bot = services.create_bot(user=owner, name="target", game="galaxy", description="the bot under test")
    for text in (b"print(1)\n", b"print(2)\n"):
        version = services.upload_version(bot=bot, user=owner, filename="main.py", data=text)
        version.status = VersionStatus.VALID
        version.save(update_fields=["status"])
    activation.refresh_active(bot=bot)
    bot.refresh_from_db()
    assert bot.active_version.number == 2
    return bot


def snapshot(bot: Bot) -> dict[str, Any]:
    """Everything a write could change: the row, its versions and the stored files."""
    fresh = Bot.objects.filter(pk=bot.pk).first()
    assert fresh is not None, "the bot was deleted"
    versions = [model_to_dict(v) | {"archive": v.archive.name} for v in fresh.versions.order_by("number")]
    return {"bot": model_to_dict(fresh), "versions": versions,
            "files": sorted(v["archive"] for v in versions if default_storage.exists(v["archive"]))}


def upload_file(text: bytes = b"print(3)\n") -> SimpleUploadedFile:
    return SimpleUploadedFile("main.py", text, content_type="text/x-python")


def only_detail(response: Any) -> str:
    """The error body, which is always exactly {"detail": "<one line>"}."""
    data = response.json()
    assert set(data) == {"detail"}, data
    assert isinstance(data["detail"], str) and data["detail"], data
    return data["detail"]


# -- The write matrix ----------------------------------------------------------------------------

WRITES = {
    "delete": ("delete", "/api/bots/{bot}/", None, 204),
    "retire": ("post", "/api/bots/{bot}/retire/", None, 200),
    "active": ("post", "/api/bots/{bot}/active/", {"version": "{v1}"}, 200),
    "upload": ("post", "/api/bots/{bot}/versions/", "file", 201),
}


def call(client: APIClient, bot: Bot, name: str) -> Any:
    method, url, data, _ = WRITES[name]
    url = url.format(bot=bot.pk)
    if data == "file":
        return client.post(url, {"file": upload_file()}, format="multipart")
    if data is not None:
        v1 = bot.versions.get(number=1).pk
        return client.post(url, {"version": v1}, format="json")
    return getattr(client, method)(url)


@pytest.mark.parametrize("name", WRITES)
def test_anonymous_cannot_write(bot, name):
    before = snapshot(bot)
    response = call(APIClient(), bot, name)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert only_detail(response) == "Authentication credentials were not provided."
    assert snapshot(bot) == before


@pytest.mark.parametrize("name", WRITES)
def test_another_user_cannot_write(bot, api, stranger, name):
    before = snapshot(bot)
    response = call(api(stranger), bot, name)
    assert response.status_code == 403
    assert only_detail(response) == "not your bot: only the members of its team may change it"
    assert snapshot(bot) == before


@pytest.mark.parametrize("name", WRITES)
def test_staff_cannot_write_through_the_api(bot, api, make_user, name):
    """Staff act in the admin; the API's writes are the owner's."""
    before = snapshot(bot)
    response = call(api(make_user("staffer", is_staff=True)), bot, name)
    assert response.status_code == 403
    assert snapshot(bot) == before


@pytest.mark.parametrize("name", WRITES)
def test_owner_writes(bot, api, owner, name, django_capture_on_commit_callbacks):
    archives = [v.archive.name for v in bot.versions.all()]
    with django_capture_on_commit_callbacks(execute=name == "delete"):
        response = call(api(owner), bot, name)
    assert response.status_code == WRITES[name][3], response.content
    if name == "delete":
        assert not Bot.objects.filter(pk=bot.pk).exists()
        assert not BotVersion.objects.filter(bot_id=bot.pk).exists()
        assert not any(default_storage.exists(a) for a in archives)
        return
    data = response.json()
    bot.refresh_from_db()
    if name == "retire":
        assert bot.retired is not None and data["retired"] is True
    elif name == "active":
        assert bot.active_version.number == 1 and bot.pinned
        assert data["active_version"] == bot.active_version_id and data["pinned"] is True
    else:
        assert data["number"] == 3 and data["status"] == "pending" and data["log"] == ""
        assert bot.versions.count() == 3


def test_writes_to_a_missing_bot_are_404(api, owner):
    client = api(owner)
    for response in (client.delete("/api/bots/999999/"), client.post("/api/bots/999999/retire/"),
                     client.post("/api/bots/999999/active/", {"version": 1}, format="json"),
                     client.post("/api/bots/999999/versions/", {"file": upload_file()}, format="multipart")):
        assert response.status_code == 404
        only_detail(response)


def test_active_refuses_a_version_of_another_bot(bot, api, owner):
    other = services.create_bot(user=owner, name="other", game="galaxy")
    version = services.upload_version(bot=other, user=owner, filename="main.py", data=b"print('other')\n")
    version.status = VersionStatus.VALID
    version.save(update_fields=["status"])
    before = snapshot(bot)
    response = api(owner).post(f"/api/bots/{bot.pk}/active/", {"version": version.pk}, format="json")
    assert response.status_code == 404
    assert "this bot has no version with id" in only_detail(response)
    assert snapshot(bot) == before


def test_create_bot(api, owner):
    anonymous = APIClient().post("/api/bots/", {"name": "newbot", "game": "galaxy"}, format="json")
    assert anonymous.status_code == 401
    only_detail(anonymous)
    assert not Bot.objects.exists()
    response = api(owner).post("/api/bots/", {"name": "newbot", "game": "galaxy"}, format="json")
    assert response.status_code == 201
    assert response.json()["owner"] == "owner"
    assert Bot.objects.get().owner == owner


def test_create_refuses_an_owner_in_the_body(api, owner, stranger):
    """No one makes a bot someone else's: `owner` is not a field of the body, so it is refused
    (tests/api/test_unknown_fields.py), and without it the bot is the caller's."""
    response = api(stranger).post("/api/bots/", {"name": "mine", "game": "galaxy", "owner": "owner"}, format="json")
    assert response.status_code == 400 and "unknown field 'owner'" in response.json()["detail"]
    assert not Bot.objects.filter(name="mine").exists()
    assert api(stranger).post("/api/bots/", {"name": "mine", "game": "galaxy"}, format="json").status_code == 201
    assert Bot.objects.get(name="mine").owner == stranger


# -- Tokens: create, list, revoke, me ----------------------------------------------------------


def test_token_create_needs_the_right_password(owner):
    client = APIClient()
    wrong = client.post("/api/tokens/", {"username": "owner", "password": "nope", "name": "x"}, format="json")
    assert wrong.status_code == 400
    assert only_detail(wrong) == "wrong username or password (or the account is disabled)"
    assert not ApiToken.objects.exists()
    right = client.post("/api/tokens/", {"username": "owner", "password": PASSWORD, "name": "laptop"}, format="json")
    assert right.status_code == 201
    data = right.json()
    assert set(data) == {"id", "name", "created", "last_used", "token"}
    token = ApiToken.objects.get()
    assert token.user == owner and token.name == "laptop" and token.pk == data["id"]


def test_token_create_for_a_disabled_user_is_refused(owner):
    owner.is_active = False
    owner.save()
    response = APIClient().post("/api/tokens/", {"username": "owner", "password": PASSWORD, "name": "x"},
                                format="json")
    assert response.status_code == 400
    only_detail(response)
    assert not ApiToken.objects.exists()


def test_token_list_and_revoke_matrix(api, owner, stranger):
    owner_client = api(owner)
    mine, _secret = create_token(user=owner, name="second")
    listed = owner_client.get("/api/tokens/").json()
    assert listed["count"] == 2
    assert {t["name"] for t in listed["results"]} == {"test", "second"}
    assert all("token" not in t and "digest" not in t for t in listed["results"])
    assert api(stranger).get("/api/tokens/").json()["count"] == 1  # only their own

    anonymous = APIClient()
    for response in (anonymous.get("/api/tokens/"), anonymous.delete(f"/api/tokens/{mine.pk}/"),
                     anonymous.get("/api/me/")):
        assert response.status_code == 401
        only_detail(response)

    stranger_client = api(stranger)
    response = stranger_client.delete(f"/api/tokens/{mine.pk}/")
    missing = stranger_client.delete("/api/tokens/999999/")
    assert (response.status_code, response.json()) == (missing.status_code, missing.json()) == (
        404, {"detail": "no such token"})
    assert ApiToken.objects.filter(pk=mine.pk).exists()

    response = owner_client.delete(f"/api/tokens/{mine.pk}/")
    assert response.status_code == 204
    assert not ApiToken.objects.filter(pk=mine.pk).exists()


def test_me(api, owner):
    data = api(owner).get("/api/me/").json()
    assert data["username"] == "owner" and data["is_staff"] is False
    assert "password" not in data


def test_revoked_token_is_401(api, owner):
    client = api(owner)
    assert client.get("/api/me/").status_code == 200
    ApiToken.objects.filter(user=owner).delete()
    response = client.get("/api/me/")
    assert response.status_code == 401
    assert only_detail(response) == "Invalid token."
    assert client.get("/api/bots/").status_code == 401  # a bad token is refused even where anonymous reads


def test_token_of_a_disabled_user_is_401(api, owner):
    client = api(owner)
    assert client.get("/api/me/").status_code == 200
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    response = client.get("/api/me/")
    assert response.status_code == 401
    only_detail(response)
    assert client.post("/api/bots/", {"name": "nope", "game": "galaxy"}, format="json").status_code == 401
    assert not Bot.objects.filter(name="nope").exists()


def test_malformed_token_is_401(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/me/")
    assert response.status_code == 401
    only_detail(response)


def test_token_is_stored_hashed(owner):
    token, secret = create_token(user=owner, name="laptop")
    row = ApiToken.objects.get(pk=token.pk)
    values = [str(value) for value in model_to_dict(row).values()] + [row.digest, row.token_key]
    assert all(secret not in value for value in values)
    assert row.digest != secret and len(row.digest) == 128
    assert row.digest == hash_token(secret)
    assert len(row.token_key) < len(secret)


def test_last_used_is_set_by_a_request(api, owner):
    client = api(owner)
    token = ApiToken.objects.get(user=owner)
    assert token.last_used is None
    assert client.get("/api/me/").status_code == 200
    token.refresh_from_db()
    assert token.last_used is not None
    listed = client.get("/api/tokens/").json()["results"][0]
    assert listed["last_used"] is not None


# -- Session authentication ---------------------------------------------------------------------


def test_session_auth_browsable_api(bot, owner):
    client = Client()
    client.force_login(owner)
    response = client.get("/api/bots/", HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    content = response.content.decode()
    assert "target" in content and "owner" in content
    me = client.get("/api/me/", HTTP_ACCEPT="application/json")
    assert me.status_code == 200 and me.json()["username"] == "owner"


def test_session_writes_need_the_csrf_token(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    response = client.post("/api/bots/", {"name": "csrfbot", "game": "galaxy"}, content_type="application/json")
    assert response.status_code == 403
    assert only_detail(response).startswith("CSRF Failed")
    assert not Bot.objects.filter(name="csrfbot").exists()


def test_session_of_a_disabled_user_is_refused(owner):
    client = Client()
    client.force_login(owner)
    assert client.get("/api/me/").status_code == 200
    owner.is_active = False
    owner.save(update_fields=["is_active"])
    response = client.get("/api/me/")
    assert response.status_code == 401
    only_detail(response)
    assert client.get("/my/bots/").status_code == 302  # to the log-in page


def test_throttled_requests_get_a_detail(db, monkeypatch):
    from armada_web.api.throttles import AnonThrottle

    monkeypatch.setattr(AnonThrottle, "rate", "2/min", raising=False)
    client = APIClient()
    assert [client.get("/api/bots/").status_code for _ in range(2)] == [200, 200]
    response = client.get("/api/bots/")
    assert response.status_code == 429
    assert re.fullmatch(r"too many requests; try again in \d+ s", only_detail(response))


# -- Reads ---------------------------------------------------------------------------------------


def test_what_anonymous_reads(bot):
    client = APIClient()
    v2 = bot.versions.get(number=2)
    for url in ("/api/bots/", f"/api/bots/{bot.pk}/", f"/api/versions/{v2.pk}/", "/api/version/",
                "/api/schema/", "/api/docs/", "/api/"):
        assert client.get(url).status_code == 200, url
    # The root lists every list path (a trial found only "bots" there), each one answering.
    root = client.get("/api/").json()
    assert {"bots", "matches", "replays", "ladder/galaxy", "ladder/mothership", "challenges", "seasons", "events",
            "teams", "tokens", "me", "status", "schema", "docs"} <= set(root)
    assert root["matches"] == "http://testserver/api/matches/"
    assert all(client.get(url).status_code in (200, 401) for name, url in root.items() if name != "docs"), root
    detail = client.get(f"/api/bots/{bot.pk}/").json()
    assert detail["owner"] == "owner" and detail["active_version"] == v2.pk
    assert [v["number"] for v in detail["versions"]] == [2, 1]
    assert "log" not in client.get(f"/api/versions/{v2.pk}/").json()
    for url in (f"/api/versions/{v2.pk}/source/", "/api/bots/999999/", "/api/versions/999999/"):
        response = client.get(url)
        assert response.status_code == 404, url
        only_detail(response)
    for url in ("/api/me/", "/api/tokens/"):
        assert client.get(url).status_code == 401, url


def test_list_filters(bot, make_user, settings):
    other = make_user("other")
    services.create_bot(user=other, name="mship", game="mothership", description="a mothership bot")
    services.create_bot(user=other, name="second", game="galaxy", description="contains target in description")
    client = APIClient()

    def names(**params: str) -> list[str]:
        return sorted(b["name"] for b in client.get("/api/bots/", params).json()["results"])

    assert names() == ["mship", "second", "target"]
    assert names(game="galaxy") == ["second", "target"]
    assert names(owner="OTHER") == ["mship", "second"]
    assert names(name="TARGET") == ["target"]
    assert names(search="target") == ["second", "target"]
    bad = client.get("/api/bots/", {"game": "chess"})
    assert bad.status_code == 400
    only_detail(bad)


# -- Error bodies -------------------------------------------------------------------------------


def test_every_error_body_is_a_single_detail(bot, api, owner, stranger):
    mine = api(owner)
    anonymous = APIClient()
    bad_token = APIClient()
    bad_token.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef")
    responses = {
        "401 anonymous": anonymous.post("/api/bots/", {}, format="json"),
        "401 bad token": bad_token.get("/api/me/"),
        "403 not yours": api(stranger).post(f"/api/bots/{bot.pk}/retire/"),
        "404 bot": anonymous.get("/api/bots/999999/"),
        "404 version": anonymous.get("/api/versions/999999/"),
        "404 token": mine.delete("/api/tokens/999999/"),
        "405": mine.put(f"/api/bots/{bot.pk}/", {}, format="json"),
        "400 fields": mine.post("/api/bots/", {}, format="json"),
        "400 name": mine.post("/api/bots/", {"name": "x", "game": "galaxy"}, format="json"),
        "400 game": mine.post("/api/bots/", {"name": "fine", "game": "chess"}, format="json"),
        "409 taken": mine.post("/api/bots/", {"name": "TARGET", "game": "galaxy"}, format="json"),  # a state: 409
        "400 no file": mine.post(f"/api/bots/{bot.pk}/versions/", {}, format="multipart"),
        "400 bad file": mine.post(f"/api/bots/{bot.pk}/versions/",
                                  {"file": SimpleUploadedFile("bot.exe", b"MZ")}, format="multipart"),
        "400 same code": mine.post(f"/api/bots/{bot.pk}/versions/", {"file": upload_file(b"print(2)\n")},
                                   format="multipart"),
        "400 version": mine.post(f"/api/bots/{bot.pk}/active/", {"version": "abc"}, format="json"),
        "400 json": mine.generic("POST", "/api/bots/", "{not json", content_type="application/json"),
        "400 token request": anonymous.post("/api/tokens/", {"username": "owner"}, format="json"),
        "415": mine.post(f"/api/bots/{bot.pk}/versions/", {"file": "x"}, format="json"),
    }
    for label, response in responses.items():
        assert response.status_code == int(label[:3]), (label, response.status_code, response.content)
        only_detail(response)
    assert "name" in responses["400 fields"].json()["detail"] and "game" in responses["400 fields"].json()["detail"]


# -- Pagination ----------------------------------------------------------------------------------


def test_lists_are_paginated(make_user, settings):
    settings.ARMADA = settings.ARMADA.with_(max_bots_per_game=20)
    users = [make_user(f"user{i}") for i in range(3)]
    for i in range(60):
        services.create_bot(user=users[i % 3], name=f"bot{i:02d}", game="galaxy" if i % 2 else "mothership")
    client = APIClient()
    first = client.get("/api/bots/").json()
    assert set(first) == {"count", "next", "previous", "results"}
    assert first["count"] == 60 and first["previous"] is None and len(first["results"]) == 50
    assert first["next"].endswith("/api/bots/?page=2")
    second = client.get("/api/bots/", {"page": 2}).json()
    assert second["count"] == 60 and second["next"] is None and len(second["results"]) == 10
    assert second["previous"] is not None
    ids = [b["id"] for b in first["results"] + second["results"]]
    assert sorted(ids) == sorted(Bot.objects.values_list("id", flat=True))  # every bot once
    small = client.get("/api/bots/", {"page_size": 7, "page": 9}).json()
    assert len(small["results"]) == 4 and small["next"] is None
    assert len(client.get("/api/bots/", {"page_size": 200}).json()["results"]) == 60  # at most 200
    too_many = client.get("/api/bots/", {"page_size": 201})  # more: refused, as the schema's maximum says
    assert too_many.status_code == 400 and "page_size must be between 1 and 200" in only_detail(too_many)
    filtered = client.get("/api/bots/", {"owner": "user1", "game": "galaxy"}).json()
    assert filtered["count"] == 10
    beyond = client.get("/api/bots/", {"page": 3})
    assert beyond.status_code == 404  # past the last page: no such page, and the list's range (docs/site.md)
    only_detail(beyond)


def test_token_list_is_paginated(api, owner):
    client = api(owner)
    data = client.get("/api/tokens/").json()
    assert set(data) == {"count", "next", "previous", "results"} and data["count"] == 1


# -- The schema and the docs ---------------------------------------------------------------------

CONTRACT = {
    "/api/tokens/": {"get", "post"},
    "/api/tokens/{id}/": {"delete"},
    "/api/me/": {"get"},
    "/api/bots/": {"get", "post"},
    "/api/bots/{id}/": {"get", "delete"},
    "/api/bots/{id}/retire/": {"post"},
    "/api/bots/{id}/active/": {"post"},
    "/api/bots/{id}/versions/": {"post"},
    "/api/versions/{id}/": {"get"},
    "/api/versions/{id}/source/": {"get"},
    "/api/version/": {"get"},
}


def test_schema_lists_every_path(db):
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    for path, methods in CONTRACT.items():
        assert path in paths, (path, sorted(paths))
        assert methods <= set(paths[path]), (path, sorted(paths[path]))
    bot_list = {p["name"] for p in paths["/api/bots/"]["get"]["parameters"]}
    assert {"game", "owner", "name", "search", "page", "page_size"} <= bot_list
    assert "tokenAuth" in schema["components"]["securitySchemes"]
    yaml = APIClient().get("/api/schema/")
    assert yaml.status_code == 200 and b"/api/bots/{id}/versions/:" in yaml.content


def test_docs_use_only_local_assets(db):
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger" in html.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), html
    # What the page loads (scripts, stylesheets, icons); its <a> links go back to the site's pages.
    assets = re.findall(r"""<(?:script|img)[^>]*\bsrc\s*=\s*["']([^"']+)["']|<link[^>]*\bhref\s*=\s*["']([^"']+)["']""",
                        html)
    assets = [src or href for src, href in assets]
    assert assets, html
    script = "/api/docs/?script="  # the split view's set-up script, a file of its own (CSP: no inline script)
    assert script in assets and "<script>" not in html
    for asset in assets:
        if asset == script:
            continue
        assert asset.startswith("/static/"), asset
        path = asset.removeprefix("/static/").split("?")[0]
        assert finders.find(path), f"{asset} is not a static file of the site"
    assert "/api/schema/" in APIClient().get(script).content.decode()
    for url in re.findall(r"""["'](https?://[^"']+)["']""", html):
        pytest.fail(f"the docs page loads {url}")


# -- Page writes (the same rules as the API) -----------------------------------------------------

PAGE_WRITES = {
    "upload": ("/bots/{bot}/upload/", "file"),
    "active": ("/bots/{bot}/active/", "version"),
    "retire": ("/bots/{bot}/retire/", None),
    "delete": ("/bots/{bot}/delete/", None),
}


def page_post(client: Client, bot: Bot, name: str) -> Any:
    url, field = PAGE_WRITES[name]
    url = url.format(bot=bot.pk)
    if field == "file":
        return client.post(url, {"file": upload_file()})
    if field == "version":
        return client.post(url, {"version": bot.versions.get(number=1).pk})
    return client.post(url)


@pytest.mark.parametrize("name", PAGE_WRITES)
def test_page_writes_matrix(bot, owner, stranger, name, django_capture_on_commit_callbacks):
    before = snapshot(bot)
    anonymous = page_post(Client(), bot, name)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert snapshot(bot) == before

    other = Client()
    other.force_login(stranger)
    response = page_post(other, bot, name)
    assert response.status_code == 404
    missing = other.post(PAGE_WRITES[name][0].format(bot=999999))
    assert (missing.status_code, missing.content) == (response.status_code, response.content)
    assert other.get(PAGE_WRITES[name][0].format(bot=bot.pk)).status_code in (404, 405)
    assert snapshot(bot) == before

    mine = Client()
    mine.force_login(owner)
    with django_capture_on_commit_callbacks(execute=name == "delete"):
        response = page_post(mine, bot, name)
    assert response.status_code == 302
    if name == "delete":
        assert not Bot.objects.filter(pk=bot.pk).exists()
        assert not any(default_storage.exists(f) for f in before["files"])
        return
    after = snapshot(bot)
    assert after != before
    if name == "upload":
        assert len(after["versions"]) == 3
    elif name == "active":
        assert after["bot"]["active_version"] == bot.versions.get(number=1).pk
    else:
        assert after["bot"]["retired"] is not None


def test_page_token_revoke_matrix(owner, stranger):
    token, _secret = create_token(user=owner, name="laptop")
    url = f"/accounts/tokens/{token.pk}/revoke/"
    anonymous = Client().post(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    other = Client()
    other.force_login(stranger)
    assert other.post(url).status_code == 302
    assert ApiToken.objects.filter(pk=token.pk).exists()
    mine = Client()
    mine.force_login(owner)
    assert mine.get(url).status_code == 405
    assert mine.post(url).status_code == 302
    assert not ApiToken.objects.filter(pk=token.pk).exists()


def test_page_account_delete_needs_login_and_password(owner):
    anonymous = Client().post("/accounts/delete/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    client = Client()
    client.force_login(owner)
    assert client.get("/accounts/delete/").status_code == 200
    assert client.post("/accounts/delete/", {"password": "wrong"}).status_code == 200
    assert type(owner).objects.filter(pk=owner.pk).exists()
    assert client.post("/accounts/delete/", {"password": PASSWORD}).status_code == 302
    assert not type(owner).objects.filter(pk=owner.pk).exists()
