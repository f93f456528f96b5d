"""A bot's source, its validation log and its orders are the owner's and staff's only.

For every page, API path and storage URL that could show them: the owner and staff see them;
another user and an anonymous visitor get 403/404 and learn nothing, not even whether the
private object exists (the answer is the same as for an id that does not exist).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from rest_framework.test import APIClient

from armada_web.accounts.services import delete_account
from armada_web.bots import services
from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.web.errors import Invalid
from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

MISSING = 999_999
VIEWERS = ["owner", "staff", "stranger", "anonymous"]
PRIVILEGED = {"owner", "staff"}


@dataclass
class World:
    owner: Any
    staff: Any
    stranger: Any
    bot: Bot
    version: BotVersion
    """v1: an archive, a log and orders, all holding secrets."""
    plain: BotVersion
    """v2: an archive, no log and no orders."""
    log_secret: str
    orders_secret: str
    archive: bytes

    def page(self, who: str) -> Client:
        client = Client()
        if who != "anonymous":
            client.force_login(getattr(self, who))
        return client

    def api(self, who: str, api_fixture: Any) -> APIClient:
        return APIClient() if who == "anonymous" else api_fixture(getattr(self, who))


@pytest.fixture
def world(make_user) -> World:
    owner = make_user("owner")
    staff = make_user("staffer", is_staff=True)
    stranger = make_user("stranger")
    bot = services.create_bot(user=owner, name="secretive", game="galaxy", description="a public description")
    log_secret = f"SECRET-LOG-{uuid.uuid4().hex}"
    orders_secret = f"SECRET-ORDERS-{uuid.uuid4().hex}"
    version = services.upload_version(bot=bot, user=owner, filename="main.py", data=b"print('v1')\n")
    version.log = f"Traceback (most recent call last):\n  {log_secret}\n"
    version.orders = [{"turn": 1, "order": orders_secret}]
    version.status = VersionStatus.VALID
    version.save()
    plain = services.upload_version(bot=bot, user=owner, filename="main.py", data=b"print('v2')\n")
    plain.status = VersionStatus.INVALID
    plain.detail = "a public one-line reason"
    plain.save()
    bot.refresh_from_db()
    archive = default_storage.open(version.archive.name, "rb").read()
    assert archive.startswith(b"PK\x03\x04")
    return World(owner, staff, stranger, bot, version, plain, log_secret, orders_secret, archive)


def body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content


def assert_no_secret(response: Any, world: World) -> None:
    content = body(response)
    assert world.log_secret.encode() not in content
    assert world.orders_secret.encode() not in content
    assert world.archive not in content


# -- API: GET /api/versions/{id}/source/ ---------------------------------------------------


@pytest.mark.parametrize("who", VIEWERS)
def test_api_source(world, api, who):
    client = world.api(who, api)
    response = client.get(f"/api/versions/{world.version.pk}/source/")
    if who in PRIVILEGED:
        assert response.status_code == 200
        assert response["Content-Type"] == "application/zip"
        assert "private" in response["Cache-Control"] and "no-store" in response["Cache-Control"]
        assert 'filename="secretive-v1.zip"' in response["Content-Disposition"]
        assert body(response) == world.archive
        return
    assert response.status_code == 404
    assert response.json() == {"detail": "no such version"}
    assert_no_secret(response, world)
    missing = client.get(f"/api/versions/{MISSING}/source/")
    assert (missing.status_code, missing.json()) == (response.status_code, response.json())


@pytest.mark.parametrize("who", ["stranger", "anonymous"])
def test_api_source_other_methods(world, api, who):
    client = world.api(who, api)
    url = f"/api/versions/{world.version.pk}/source/"
    missing = f"/api/versions/{MISSING}/source/"
    head, head_missing = client.head(url), client.head(missing)
    assert head.status_code == head_missing.status_code == 404
    assert head.get("Content-Length") == head_missing.get("Content-Length")
    for method in ("options", "post", "delete"):
        response, other = getattr(client, method)(url), getattr(client, method)(missing)
        assert (response.status_code, response.content) == (other.status_code, other.content), method
        assert_no_secret(response, world)


@pytest.mark.parametrize("who", ["owner", "staff"])
def test_api_source_of_a_version_without_archive_is_absent(world, api, who):
    world.version.archive.name = ""
    world.version.save(update_fields=["archive"])
    response = world.api(who, api).get(f"/api/versions/{world.version.pk}/source/")
    assert (response.status_code, response.json()) == (404, {"detail": "no such version"})


# -- API: GET /api/versions/{id}/ (the "log" key) --------------------------------------------


@pytest.mark.parametrize("who", VIEWERS)
def test_api_version_log_key(world, api, who):
    client = world.api(who, api)
    response = client.get(f"/api/versions/{world.version.pk}/")
    assert response.status_code == 200
    data = response.json()
    assert data["id"] == world.version.pk and data["status"] == "valid"  # the status is public
    plain = client.get(f"/api/versions/{world.plain.pk}/").json()
    assert plain["detail"] == "a public one-line reason"
    if who in PRIVILEGED:
        assert data["log"] == world.version.log
        assert plain["log"] == ""
        assert data["sha256"] == world.version.sha256
        assert (data["size"], data["files"]) == (world.version.size, world.version.files)
        return
    assert "log" not in data and "log" not in plain
    # Each would tell whether the bot is a given file (an unchanged starter's size names it, a copy's hash).
    assert not {"sha256", "size", "files"} & set(data)
    assert_no_secret(response, world)
    # The same keys whether the version has a log or not: nothing tells that a log exists.
    assert set(data) == set(plain)


def test_api_version_of_a_missing_id(world, api):
    for client in (APIClient(), api(world.stranger)):
        response = client.get(f"/api/versions/{MISSING}/")
        assert (response.status_code, response.json()) == (404, {"detail": "no such version"})


def test_api_browsable_version_hides_the_log(world):
    response = world.page("stranger").get(f"/api/versions/{world.version.pk}/", HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert_no_secret(response, world)


# -- Pages: /bots/{id}/versions/{n}/ and its source/ ----------------------------------------


@pytest.mark.parametrize("who", VIEWERS)
def test_version_page_log_and_orders(world, who):
    response = world.page(who).get(f"/bots/{world.bot.pk}/versions/1/")
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="status"' in content and "valid" in content  # public
    source_link = f"/bots/{world.bot.pk}/versions/1/source/"
    if who in PRIVILEGED:
        assert world.log_secret in content
        assert world.orders_secret in content
        assert f'&quot;order&quot;: &quot;{world.orders_secret}&quot;' in content  # JSON, as the bot sent them
        assert source_link in content
        assert f"{world.version.size} bytes" in content
        return
    assert_no_secret(response, world)
    assert 'id="archive-size"' not in content and f"{world.version.size} bytes" not in content
    assert 'id="log"' not in content
    assert "Orders" not in content
    assert source_link not in content
    assert "sha256" not in content


@pytest.mark.parametrize("who", VIEWERS)
def test_version_page_source_download(world, who):
    client = world.page(who)
    response = client.get(f"/bots/{world.bot.pk}/versions/1/source/")
    if who in PRIVILEGED:
        assert response.status_code == 200
        assert response["Content-Type"] == "application/zip"
        assert "no-store" in response["Cache-Control"]
        assert body(response) == world.archive
        return
    assert response.status_code == 404
    assert_no_secret(response, world)
    for missing_url in (f"/bots/{world.bot.pk}/versions/99/source/", f"/bots/{MISSING}/versions/1/source/"):
        missing = client.get(missing_url)
        assert (missing.status_code, body(missing)) == (response.status_code, body(response)), missing_url


@pytest.mark.parametrize("who", ["owner", "staff"])
def test_page_source_of_missing_versions_is_404(world, who):
    client = world.page(who)
    assert client.get(f"/bots/{world.bot.pk}/versions/99/source/").status_code == 404
    assert client.get(f"/bots/{MISSING}/versions/1/source/").status_code == 404
    world.version.archive.name = ""
    world.version.save(update_fields=["archive"])
    assert client.get(f"/bots/{world.bot.pk}/versions/1/source/").status_code == 404


# -- Storage: no URL serves the private files ------------------------------------------------


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_no_url_serves_stored_archives(world, settings, tmp_path, debug):
    # The production layout: static files and private storage side by side in one data folder.
    settings.DEBUG = debug
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STATIC_ROOT.mkdir()
    (settings.STATIC_ROOT / "public.txt").write_text("public")
    name = world.version.archive.name
    assert default_storage.exists(name)
    assert default_storage.path(name).startswith(str(tmp_path / "private"))
    with pytest.raises(ValueError, match="no URLs"):  # the private storage gives no file a URL
        default_storage.url(name)
    guesses = [f"/{name}", f"/media/{name}", f"/static/{name}",
               f"/private/{name}", f"/static/../private/{name}",
               f"/static/%2e%2e/private/{name}", f"/data/private/{name}", f"/media/private/{name}",
               f"/uploads/{name}", f"/files/{name}", f"/storage/{name}", f"/api/{name}", f"/bots/{name}"]
    for who in VIEWERS:
        client = world.page(who)  # a new client: the middleware (WhiteNoise) reads these settings
        if not debug:
            assert client.get("/static/public.txt").status_code == 200  # the static folder is served
        for url in guesses:
            response = client.get(url)
            assert response.status_code == 404, (who, url, response.status_code)
            assert_no_secret(response, world)


# -- The log is never on the public views of the bot ---------------------------------------


@pytest.mark.parametrize("who", VIEWERS)
def test_bot_views_never_show_the_log(world, api, who):
    client = world.api(who, api)
    pages = world.page(who)
    responses = {
        "api detail": client.get(f"/api/bots/{world.bot.pk}/"),
        "api list": client.get("/api/bots/"),
        "api search": client.get("/api/bots/", {"search": world.log_secret}),
        "api filter": client.get("/api/bots/", {"owner": "owner", "game": "galaxy", "name": "secretive"}),
        "bot page": pages.get(f"/bots/{world.bot.pk}/"),
        "home page": pages.get("/"),
    }
    for label, response in responses.items():
        assert response.status_code == 200, label
        assert_no_secret(response, world)
    detail = responses["api detail"].json()
    assert [v["number"] for v in detail["versions"]] == [2, 1]
    assert all(set(v) == {"id", "number", "status", "detail", "created"} for v in detail["versions"])
    assert responses["api search"].json()["count"] == 0  # a log is not searchable
    assert [b["name"] for b in responses["api filter"].json()["results"]] == ["secretive"]
    assert "secretive" in responses["bot page"].content.decode()


def test_my_bots_page_shows_no_log(world):
    response = world.page("owner").get("/my/bots/")
    assert response.status_code == 200
    assert "secretive" in response.content.decode()
    assert_no_secret(response, world)


@pytest.mark.parametrize("who", ["stranger", "anonymous"])
def test_admin_does_not_open_to_non_staff(world, who):
    client = world.page(who)
    for url in (f"/admin/bots/botversion/{world.version.pk}/change/", "/admin/bots/botversion/",
                f"/admin/bots/bot/{world.bot.pk}/change/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), url
        assert_no_secret(response, world)


def test_staff_sees_the_log_in_the_admin(world, make_user):
    admin = make_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    response = client.get(f"/admin/bots/botversion/{world.version.pk}/change/")
    assert response.status_code == 200
    assert world.log_secret in response.content.decode()


# -- Deleting the account ----------------------------------------------------------------------


def test_deleted_account_removes_sources_and_logs(world, api, django_capture_on_commit_callbacks):
    names = [world.version.archive.name, world.plain.archive.name]
    assert all(default_storage.exists(name) for name in names)
    owner_api = api(world.owner)
    assert owner_api.get("/api/me/").status_code == 200
    with pytest.raises(Invalid, match="wrong password"):
        delete_account(user=world.owner, password="not it")
    assert all(default_storage.exists(name) for name in names)  # nothing changed
    with django_capture_on_commit_callbacks(execute=True):
        delete_account(user=world.owner, password=PASSWORD)
    assert not any(default_storage.exists(name) for name in names)
    assert not list(Path(default_storage.location).rglob("*.zip"))
    bot = Bot.objects.get(pk=world.bot.pk)
    assert bot.owner is None
    assert bot.retired is not None and not bot.is_active
    versions = list(bot.versions.order_by("number"))
    assert [v.number for v in versions] == [1, 2]  # history stays
    assert all(v.log == "" and v.archive.name == "" for v in versions)
    assert versions[0].status == "valid" and versions[0].sha256 == world.version.sha256

    assert owner_api.get("/api/me/").status_code == 401  # the account's tokens went with it
    staff_api = api(world.staff)
    detail = staff_api.get(f"/api/bots/{bot.pk}/").json()
    assert detail["owner"] is None and detail["retired"] is True
    assert staff_api.get(f"/api/versions/{world.version.pk}/").json()["log"] == ""
    response = staff_api.get(f"/api/versions/{world.version.pk}/source/")
    assert (response.status_code, response.json()) == (404, {"detail": "no such version"})
    page = world.page("staff").get(f"/bots/{bot.pk}/")
    assert "a deleted account" in page.content.decode() and "retired" in page.content.decode()
    assert world.page("staff").get(f"/bots/{bot.pk}/versions/1/source/").status_code == 404
    version_page = world.page("staff").get(f"/bots/{bot.pk}/versions/1/")
    assert version_page.status_code == 200
    assert world.log_secret not in version_page.content.decode()
    assert f"/bots/{bot.pk}/versions/1/source/" not in version_page.content.decode()  # no download link
    for who in VIEWERS[1:]:
        assert_no_secret(world.api(who, api).get(f"/api/bots/{bot.pk}/"), world)


@pytest.mark.parametrize("where", ["api", "page"])
def test_source_whose_file_is_missing(world, api, where):
    default_storage.delete(world.version.archive.name)
    if where == "api":
        response = world.api("owner", api).get(f"/api/versions/{world.version.pk}/source/")
        assert response.status_code in (404, 503)
        assert set(response.json()) == {"detail"}
    else:
        response = world.page("owner").get(f"/bots/{world.bot.pk}/versions/1/source/")
        assert response.status_code in (404, 503)


def test_only_the_team_is_told_an_older_version_can_be_made_active(make_user, valid_version):
    """An organiser's trial: a stranger on an older version's page read "It can be made active again on the
    bot's page", which only the team can do."""
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import VersionStatus
    from armada_web.bots.services import upload_version

    first = valid_version(make_user("olga"), "twice")
    newer = upload_version(bot=first.bot, user=first.bot.owner, filename="main.py", data=b"print('v2')\n")
    newer.status = VersionStatus.VALID
    newer.save()
    refresh_active(bot=first.bot)
    first.bot.refresh_from_db()
    assert first.bot.active_version_id == newer.pk
    owner, stranger = Client(), Client()
    owner.force_login(first.bot.owner)
    stranger.force_login(make_user("zed"))
    url = f"/bots/{first.bot_id}/versions/{first.number}/"
    for client, told in ((owner, True), (stranger, False), (Client(), False)):
        page = client.get(url).content.decode()
        assert "a newer valid version plays (v2)" in page
        assert ("It can be made active again" in page) is told
