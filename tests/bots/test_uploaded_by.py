"""A version records which member of its bot's team uploaded it (a team trial asked "did A or B upload
v3?"): its team and staff see the name, in the API and on the pages; no one else does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from armada_web.accounts.services import delete_account
from armada_web.bots import services
from armada_web.bots.models import Bot, BotVersion
from armada_web.teams import services as teams
from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db

#: A name the pages must escape (sign-up refuses it; a user made in a shell or the admin is not checked).
MARKUP = "<b>eve</b>&co"
ESCAPED = "&lt;b&gt;eve&lt;/b&gt;&amp;co"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class Crew:
    alice: Any
    bob: Any
    staff: Any
    stranger: Any
    bot: Bot
    first: BotVersion
    """v1, uploaded by alice (who created the bot)."""
    second: BotVersion
    """v2, uploaded by bob."""

    def api(self, who: str, api_fixture: Any) -> APIClient:
        return APIClient() if who == "anonymous" else api_fixture(getattr(self, who))

    def page(self, who: str) -> Client:
        client = Client()
        if who != "anonymous":
            client.force_login(getattr(self, who))
        return client


@pytest.fixture
def crew(make_user) -> Crew:
    alice, bob = make_user("alice"), make_user("bob")
    team = teams.create_team(user=alice, name="crew")
    teams.join_team(user=bob, team=team, key=team.join_key)
    bot = services.create_bot(user=alice, name="shared", game="galaxy", team=team.pk)
    first = services.upload_version(bot=bot, user=alice, filename="main.py", data=b"print('alice')\n")
    second = services.upload_version(bot=bot, user=bob, filename="main.py", data=b"print('bob')\n")
    return Crew(alice, bob, make_user("staffer", is_staff=True), make_user("stranger"), bot, first, second)


def test_each_version_records_the_member_who_uploaded_it_not_the_bots_creator(crew):
    first, second = (BotVersion.objects.get(pk=v.pk) for v in (crew.first, crew.second))
    assert (first.uploaded_by_id, second.uploaded_by_id) == (crew.alice.pk, crew.bob.pk)
    assert crew.bot.owner_id == crew.alice.pk  # bob's version is not put down to the bot's creator


@pytest.mark.parametrize("who", ["alice", "bob", "staff"])
def test_the_team_and_staff_see_who_uploaded_each_version_in_the_api(crew, api, who):
    client = crew.api(who, api)
    first = client.get(f"/api/versions/{crew.first.pk}/").json()
    second = client.get(f"/api/versions/{crew.second.pk}/").json()
    assert (first["uploaded_by"], second["uploaded_by"]) == ("alice", "bob")


@pytest.mark.parametrize("who", ["stranger", "anonymous"])
def test_anyone_else_gets_no_uploaded_by_key(crew, api, who):
    for version in (crew.first, crew.second):
        response = crew.api(who, api).get(f"/api/versions/{version.pk}/")
        assert response.status_code == 200
        data = response.json()
        assert "uploaded_by" not in data and "sha256" not in data
        assert b"alice" not in response.content and b"bob" not in response.content


def test_an_upload_through_the_api_answers_with_its_uploader(crew, api):
    response = api(crew.bob).post(f"/api/bots/{crew.bot.pk}/versions/",
                                  {"file": SimpleUploadedFile("main.py", b"print('bob again')\n")},
                                  format="multipart")
    assert response.status_code == 201, response.content
    assert response.json()["uploaded_by"] == "bob"
    assert BotVersion.objects.get(pk=response.json()["id"]).uploaded_by_id == crew.bob.pk


def test_an_upload_through_the_page_records_the_signed_in_member(crew):
    client = crew.page("bob")
    response = client.post(f"/bots/{crew.bot.pk}/upload/",
                           {"file": SimpleUploadedFile("main.py", b"print('bob on the page')\n")})
    assert response.status_code == 302, response.content
    newest = crew.bot.versions.order_by("-number").first()
    assert newest is not None and newest.number == 3 and newest.uploaded_by_id == crew.bob.pk


@pytest.mark.parametrize("who", ["alice", "bob", "staff", "stranger", "anonymous"])
def test_the_version_page_names_the_uploader_to_the_team_and_staff_only(crew, who):
    client = crew.page(who)
    first = client.get(f"/bots/{crew.bot.pk}/versions/1/").content.decode()
    second = client.get(f"/bots/{crew.bot.pk}/versions/2/").content.decode()
    if who in ("alice", "bob", "staff"):
        assert 'by <span id="uploaded-by">alice</span>' in first
        assert 'by <span id="uploaded-by">bob</span>' in second
        return
    assert 'id="uploaded-by"' not in first and 'id="uploaded-by"' not in second
    assert "by alice" not in first and "by bob" not in second


def test_the_pages_escape_the_uploaders_name(crew):
    eve = crew.bob.__class__.objects.create_user(username=MARKUP, password=PASSWORD)
    team = crew.bot.team
    teams.join_team(user=eve, team=team, key=team.join_key)
    services.upload_version(bot=crew.bot, user=eve, filename="main.py", data=b"print('eve')\n")
    client = crew.page("alice")
    for content in (client.get(f"/bots/{crew.bot.pk}/versions/3/").content.decode(),
                    client.get(f"/bots/{crew.bot.pk}/").content.decode()):
        assert f"by {ESCAPED}" in content or f'by <span id="uploaded-by">{ESCAPED}</span>' in content
        assert MARKUP not in content


@pytest.mark.parametrize("who", ["bob", "stranger"])
def test_the_bots_list_of_versions_names_the_uploaders_to_the_team(crew, who):
    content = crew.page(who).get(f"/bots/{crew.bot.pk}/").content.decode()
    if who == "bob":
        assert "by alice" in content and "by bob" in content
    else:
        assert "by alice" not in content and "by bob" not in content


def test_a_deleted_account_leaves_its_versions_naming_no_one(crew, api):
    delete_account(user=crew.bob, password=PASSWORD)
    second = BotVersion.objects.get(pk=crew.second.pk)  # the team's version stays
    assert second.uploaded_by_id is None
    data = api(crew.alice).get(f"/api/versions/{second.pk}/").json()
    assert data["uploaded_by"] is None
    content = crew.page("alice").get(f"/bots/{crew.bot.pk}/versions/2/").content.decode()
    assert 'id="uploaded-by"' not in content and "by bob" not in content


def test_a_version_from_before_it_was_recorded_names_no_one(crew, api):
    BotVersion.objects.filter(pk=crew.first.pk).update(uploaded_by=None)
    assert api(crew.alice).get(f"/api/versions/{crew.first.pk}/").json()["uploaded_by"] is None
    assert 'id="uploaded-by"' not in crew.page("alice").get(f"/bots/{crew.bot.pk}/versions/1/").content.decode()


def test_the_schema_marks_uploaded_by_as_optional_and_nullable():
    schema = APIClient().get("/api/schema/?format=json").json()
    path = next(p for p in schema["paths"] if p.startswith("/api/versions/") and p.count("/") == 4)
    ref = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    version = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    field = version["properties"]["uploaded_by"]
    assert field["nullable"] is True and "team and staff only" in field["description"]
    for private in ("uploaded_by", "sha256", "log", "resources"):
        assert private not in version.get("required", [])
