"""Accounts: sign-up, log-in with brute-force limits, password change and reset (console
e-mail), API tokens (hashed, named, shown once, revoked, last use), deleting an account."""

from __future__ import annotations

import io
import re

import pytest
from django.core import mail

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


def test_sign_up_uses_the_password_validators_and_logs_in(client):
    from django.contrib.auth.models import User

    weak = client.post("/accounts/signup/", {"username": "dora", "password1": "12345678", "password2": "12345678"})
    assert weak.status_code == 200 and "too common" in weak.content.decode()
    assert not User.objects.filter(username="dora").exists()
    response = client.post("/accounts/signup/", {"username": "dora", "email": "",
                                                  "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    assert client.get("/my/bots/").status_code == 200  # signed in
    client.post("/accounts/logout/")
    assert client.get("/my/bots/").status_code == 302  # signed out: sent to log in


@pytest.mark.parametrize("name", [".", "..", "..."])
def test_sign_up_refuses_a_username_of_only_dots(client, name):
    """`/users/../` is another page to a browser: such a name would have no page."""
    from django.contrib.auth.models import User

    response = client.post("/accounts/signup/", {"username": name, "email": "",
                                                  "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200 and "cannot be only dots" in response.content.decode()
    assert not User.objects.filter(username=name).exists()


@pytest.mark.parametrize("name", ["a/b", "a?b", "a#b", "a%2e", "a b"])
def test_sign_up_refuses_a_username_a_link_would_break(client, name):
    from django.contrib.auth.models import User

    response = client.post("/accounts/signup/", {"username": name, "email": "",
                                                  "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200 and "Enter a valid username" in response.content.decode()
    assert not User.objects.filter(username=name).exists()



@pytest.mark.parametrize(("name", "said"), [
    ("\u0430licetb", "'\u0430' at 1 is Cyrillic"),  # a Cyrillic "a", then Latin
    ("alic\u0435tb", "'\u0435' at 5 is Cyrillic"),
    ("\u043f\u0430\u0432\u0435l", "'l' at 5 is Latin"),  # mostly Cyrillic: the Latin letter is the odd one
    ("\u03bfmega", "'\u03bf' at 1 is Greek"),  # a Greek omicron
])
def test_sign_up_refuses_a_username_that_mixes_alphabets(client, make_user, name, said):
    """A competitor's trial signed up `\u0430licetb` (a Cyrillic "a") beside `alicetb`: the new account's
    personal team took that name too, which a team's own name may not (D-S-23)."""
    from django.contrib.auth.models import User

    make_user("alicetb")
    response = client.post("/accounts/signup/", {"username": name, "email": "",
                                                  "password1": PASSWORD, "password2": PASSWORD})
    page = response.content.decode()
    assert response.status_code == 200 and "the username mixes alphabets (" in page, page[-3000:]
    assert "it could pass for another user&#x27;s name" in page and said.replace("'", "&#x27;") in page
    assert not User.objects.filter(username=name).exists() and User.objects.count() == 1


@pytest.mark.parametrize("name", ["alicetc", "ALICETC", "\uff41licetc"])  # taken, in any case or width
def test_sign_up_with_a_taken_username_says_so(client, make_user, name):
    """A final trial: a taken username (Django refuses it first, and its clean_username gives None)
    was a 500, as the alphabet check read None."""
    from django.contrib.auth.models import User

    make_user("alicetc")
    response = client.post("/accounts/signup/", {"username": name, "email": "",
                                                  "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 200 and "A user with that username already exists." in response.content.decode()
    assert User.objects.count() == 1


@pytest.mark.parametrize("name", ["\u0251licetc", "al\u0131cetc", "ALIC\u00c9TC", "\u1d00licetc"])
def test_sign_up_refuses_a_username_that_reads_as_an_existing_one(client, make_user, name):
    """A final trial signed up `\u0251licetc` (Latin alpha) and `al\u0131cetc` (dotless i) beside `alicetc`:
    one alphabet each, so the alphabet rule let them through (D-S-34)."""
    from django.contrib.auth.models import User

    make_user("alicetc")
    response = client.post("/accounts/signup/", {"username": name, "email": "",
                                                  "password1": PASSWORD, "password2": PASSWORD})
    page = response.content.decode()
    # refused by this rule, or first by Django's case-blind uniqueness where the database's UPPER()
    # maps the letter to ASCII already (PostgreSQL's: dotless i is I)
    assert response.status_code == 200 and ("the username reads as &#x27;alicetc&#x27;, an existing user" in page
                                             or "A user with that username already exists." in page)
    assert User.objects.count() == 1
    fine = client.post("/accounts/signup/", {"username": "b\u00e9atrice", "email": "",  # no such account
                                              "password1": PASSWORD, "password2": PASSWORD})
    assert fine.status_code == 302 and User.objects.filter(username="b\u00e9atrice").exists()


def test_the_admin_and_the_staff_account_refuse_a_username_that_mixes_alphabets(client, make_user):
    """Every way to make an account names it through `check_username`; an older account keeps its name."""
    from django.contrib.auth.models import User

    from armada_web.accounts.services import ensure_superuser
    from armada_web.web.errors import Invalid

    with pytest.raises(Invalid, match="mixes alphabets"):
        ensure_superuser(username="b\u043ess", email="", password="admin-set-pass-91")
    staff = User.objects.create_superuser(username="boss", email="", password=PASSWORD)
    client.force_login(staff)
    added = client.post("/admin/auth/user/add/", {"username": "\u0430licetb", "password1": "admin-set-pass-91",
                                                  "password2": "admin-set-pass-91", "usable_password": "true"})
    assert added.status_code == 200 and "mixes alphabets" in added.content.decode()
    assert not User.objects.filter(username="\u0430licetb").exists()
    older = make_user("\u0430lice")  # made before the rule
    form = {"username": older.username, "password": "x", "is_active": "", "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00", "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"}
    kept = client.post(f"/admin/auth/user/{older.pk}/change/", form)
    assert kept.status_code == 302, kept.content.decode()[:2000]
    older.refresh_from_db()
    assert older.username == "\u0430lice" and not older.is_active


def test_sign_up_takes_a_username_in_one_alphabet(client):
    from django.contrib.auth.models import User

    for name in ("\u0430\u043b\u0438\u0441\u0430", "caf\u00e9_7"):  # "алиса", "café_7"
        client.post("/accounts/logout/")
        response = client.post("/accounts/signup/", {"username": name, "email": "",
                                                      "password1": PASSWORD, "password2": PASSWORD})
        assert response.status_code == 302, response.content.decode()[-2000:]
        assert User.objects.filter(username=name).exists()

def test_a_username_with_dots_among_other_characters_is_taken_and_linked(client):
    response = client.post("/accounts/signup/", {"username": ".a.", "email": "",
                                                  "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    assert client.get("/users/.a./").status_code == 200


def test_an_older_account_named_only_dots_still_gets_its_pages(client, make_user, valid_version):
    """Made before the rule (or by the admin): the pages that name it render."""
    user = make_user("..")
    valid_version(user, "dotty")
    client.force_login(user)
    for url in ("/my/bots/", "/accounts/profile/", "/ladder/galaxy/", "/matches/", "/"):
        assert client.get(url).status_code == 200, url


def test_sign_up_service_refuses_only_dots_too():
    from armada_web.accounts import services
    from armada_web.web.errors import Invalid

    with pytest.raises(Invalid, match="only dots"):
        services.sign_up(username="..", email="", password=PASSWORD)
    with pytest.raises(Invalid, match="only dots"):
        services.ensure_superuser(username="..", email="", password=PASSWORD)


def test_an_existing_staff_account_named_only_dots_still_passes_ensure_superuser(make_user):
    """Compose's migrate service runs `ensure_superuser` on every start: a staff account made
    before the rule keeps its name and the deploy keeps starting ("exists"; an ordinary one,
    "not staff"); only a new account of dots is refused."""
    from django.contrib.auth.models import User

    from armada_web.accounts import services
    from armada_web.web.errors import Invalid

    User.objects.create_superuser(username="...", email="", password=PASSWORD)
    make_user("..")
    assert services.ensure_superuser(username="...", email="", password="") == "exists"
    assert services.ensure_superuser(username="..", email="", password=PASSWORD) == "not staff"
    with pytest.raises(Invalid, match="only dots"):
        services.ensure_superuser(username=".", email="", password=PASSWORD)
    assert not User.objects.filter(username=".").exists()


def test_login_page_throttles_failures_per_username(client, make_user, settings):
    settings.ARMADA = settings.ARMADA.with_(login_failures_per_ip=100, login_failures_per_user=3,
                                            login_failure_window_s=900)
    make_user("erin")
    for _ in range(3):
        response = client.post("/accounts/login/", {"username": "erin", "password": "wrong"})
        assert "Please enter a correct username" in response.content.decode()
    blocked = client.post("/accounts/login/", {"username": "erin", "password": PASSWORD})
    assert "too many log-in attempts for this username" in blocked.content.decode()
    assert client.get("/my/bots/").status_code == 302  # the right password did not get in either
    other = client.post("/accounts/login/", {"username": "nobody-else", "password": "x"})
    assert "too many" not in other.content.decode()


def test_failures_elsewhere_do_not_lock_the_owner_out_of_a_browser_they_signed_in_from(client, make_user,
                                                                                        settings):
    """The per-username count let anyone lock an account out by failing ten times under its name: a
    browser the account signed in from (its `armada-device` cookie, accounts.devices) counts its own
    failures. Everyone else shares the username's count, from whatever address (a review: a design
    trusting the owner's past addresses gave each a budget of its own and told where they sign in)."""
    from django.test import Client

    from armada_web.accounts.devices import COOKIE

    settings.ARMADA = settings.ARMADA.with_(login_failures_per_ip=100, login_failures_per_user=3,
                                            login_failure_window_s=900)
    make_user("gwen")
    make_user("hal")
    signed_up = Client().post("/accounts/signup/", {"username": "ivy", "password1": PASSWORD, "password2": PASSWORD})
    assert signed_up.status_code == 302 and signed_up.cookies[COOKIE].value  # signing up signs in: marked too
    first = client.post("/accounts/login/", {"username": "gwen", "password": PASSWORD})
    assert first.status_code == 302 and first.cookies[COOKIE]["httponly"]
    device = first.cookies[COOKIE].value
    client.logout()  # (the test client's drops every cookie; the site's log-out keeps this one)
    client.cookies[COOKIE] = device
    attacker = Client()
    for n in range(4):
        attacker.post("/accounts/login/", {"username": "gwen", "password": "wrong"}, REMOTE_ADDR=f"198.51.100.{n}")
    locked = Client().post("/accounts/login/", {"username": "gwen", "password": PASSWORD}, REMOTE_ADDR="192.0.2.7")
    assert "too many log-in attempts for this username" in locked.content.decode()  # her address, not her browser
    forged = Client()
    forged.cookies[COOKIE] = device[:-3] + "abc"  # a cookie not signed by the site
    assert "too many log-in attempts" in forged.post("/accounts/login/", {"username": "gwen",
                                                                          "password": PASSWORD}).content.decode()
    other = Client()
    assert other.post("/accounts/login/", {"username": "hal", "password": PASSWORD}).status_code == 302
    other.logout()  # hal's browser is not gwen's
    assert "too many log-in attempts" in other.post("/accounts/login/", {"username": "gwen",
                                                                         "password": PASSWORD}).content.decode()
    back = client.post("/accounts/login/", {"username": "gwen", "password": PASSWORD}, REMOTE_ADDR="203.0.113.9")
    assert back.status_code == 302 and client.get("/my/bots/").status_code == 200  # her browser, anywhere
    client.logout()
    client.cookies[COOKIE] = back.cookies[COOKIE].value
    for _ in range(3):  # and her browser has a limit of its own
        client.post("/accounts/login/", {"username": "gwen", "password": "wrong"})
    again = client.post("/accounts/login/", {"username": "gwen", "password": PASSWORD})
    assert "too many log-in attempts for this username" in again.content.decode()


def test_token_api_throttles_per_address(client, make_user, settings):
    settings.ARMADA = settings.ARMADA.with_(login_failures_per_ip=2, login_failures_per_user=100,
                                            login_failure_window_s=900)
    make_user("fay")
    for name in ("a", "b"):
        response = client.post("/api/tokens/", {"username": name, "password": "x", "name": "t"},
                               content_type="application/json")
        assert response.status_code == 400
        assert response.json() == {"detail": "wrong username or password (or the account is disabled)"}
    response = client.post("/api/tokens/", {"username": "fay", "password": PASSWORD, "name": "t"},
                           content_type="application/json")
    assert response.status_code == 429
    assert "from your address" in response.json()["detail"]
    response = client.post("/api/tokens/", {"username": "fay", "password": PASSWORD, "name": "t"},
                           content_type="application/json", REMOTE_ADDR="10.9.9.9")
    assert response.status_code == 201


def test_tokens_are_named_hashed_shown_once_and_revocable(client, make_user):
    from armada_web.accounts.models import ApiToken

    user = make_user("gus")
    response = client.post("/api/tokens/", {"username": "gus", "password": PASSWORD, "name": "laptop"},
                           content_type="application/json")
    assert response.status_code == 201
    secret = response.json()["token"]
    row = ApiToken.objects.get(user=user)
    assert row.name == "laptop" and row.last_used is None
    assert secret not in (row.digest, row.token_key) and len(row.token_key) < len(secret)
    me = client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {secret}")
    assert me.status_code == 200 and me.json()["username"] == "gus"
    row.refresh_from_db()
    assert row.last_used is not None

    client.force_login(user)
    page = client.post("/accounts/profile/", {"name": "desktop", "password": PASSWORD}, follow=True).content.decode()
    shown = re.search(r'<code class="secret">([^<]+)</code>', page).group(1)
    assert client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {shown}").status_code == 200
    # and how the CLI takes it (armada login --token-stdin, tests/sdk/cli/test_login.py)
    assert '<code id="token-login">armada login http://testserver --token-stdin</code>' in page
    again = client.get("/accounts/profile/").content.decode()
    assert shown not in again and "desktop" in again and "laptop" in again  # listed, never shown again
    assert ApiToken.objects.filter(user=user).count() == 2

    client.post(f"/accounts/tokens/{row.pk}/revoke/")
    assert client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 401
    assert client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {shown}").status_code == 200


def test_change_password_and_reset_by_console_email(client, make_user):
    user = make_user("hal", email="hal@example.org")
    client.force_login(user)
    response = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "another-long-pass-77",
                                                    "new_password2": "another-long-pass-77"})
    assert response.status_code == 302
    client.post("/accounts/logout/")
    assert client.login(username="hal", password="another-long-pass-77")
    client.logout()

    client.post("/accounts/password/reset/", {"email": "hal@example.org"})
    assert len(mail.outbox) == 1
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    set_url = form_page.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": "reset-long-pass-88", "new_password2": "reset-long-pass-88"})
    assert done.status_code == 302
    assert client.login(username="hal", password="reset-long-pass-88")


def test_delete_account_retires_bots_deletes_code_and_keeps_history(client, make_user, tmp_path,
                                                                    django_capture_on_commit_callbacks):
    from django.contrib.auth.models import User

    from armada_web.bots.models import Bot, BotVersion
    from armada_web.bots.services import create_bot, upload_version

    user = make_user("ivy")
    bot = create_bot(user=user, name="ivy-bot", game="galaxy", description="mine")
    version = upload_version(bot=bot, user=user, filename="main.py", data=b"print(1)\n")
    BotVersion.objects.filter(pk=version.pk).update(log="private log")
    stored = tmp_path / "private" / version.archive.name
    assert stored.exists()

    client.force_login(user)
    wrong = client.post("/accounts/delete/", {"password": "nope"})
    assert wrong.status_code == 200 and User.objects.filter(username="ivy").exists()
    with django_capture_on_commit_callbacks(execute=True):  # files go once the deletion is committed
        client.post("/accounts/delete/", {"password": PASSWORD})
    assert not User.objects.filter(username="ivy").exists()
    bot = Bot.objects.get(pk=bot.pk)
    assert bot.owner is None and bot.retired is not None
    version.refresh_from_db()
    assert version.log == "" and not version.archive.name
    assert not stored.exists()
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "retired" in page and "a deleted account" in page


def test_a_new_token_is_shown_once_and_a_reload_creates_no_other(client, make_user):
    from armada_web.accounts.models import ApiToken

    user = make_user("jan")
    client.force_login(user)
    response = client.post("/accounts/profile/", {"name": "laptop", "password": PASSWORD})
    assert response.status_code == 302  # post, redirect, get
    shown = client.get("/accounts/profile/").content.decode()
    assert 'class="secret"' in shown and "(new)" in shown
    assert 'class="secret"' not in client.get("/accounts/profile/").content.decode()
    assert ApiToken.objects.filter(user=user).count() == 1


def test_a_token_from_the_profile_needs_the_password_and_a_bad_name_is_said_first(client, make_user):
    """A token outlives the session, so a stolen session must not mint one: the profile asks the
    password (counted as a log-in attempt is: ten wrong ones and the right one is refused too)."""
    from armada_web.accounts.models import ApiToken

    user = make_user("kai")
    client.force_login(user)
    for body in ({"name": "laptop"}, {"name": "laptop", "password": "wrong-guess"}):
        page = client.post("/accounts/profile/", body).content.decode()
        assert 'class="secret"' not in page
    assert "wrong password" in page
    bad_name = client.post("/accounts/profile/", {"name": "a\u200bb", "password": "wrong-again"}).content.decode()
    assert "may not hold control characters" in bad_name and "wrong password" not in bad_name
    assert not ApiToken.objects.filter(user=user).exists()
    page = client.get("/accounts/profile/").content.decode()
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) and 'for="token_password"' in page  # each label names its own field
    for n in range(10):
        client.post("/accounts/profile/", {"name": "laptop", "password": f"guess-{n}"})
    refused = client.post("/accounts/profile/", {"name": "laptop", "password": PASSWORD}).content.decode()
    assert "wrong password" not in refused and "try again" in refused.lower()
    assert not ApiToken.objects.filter(user=user).exists()


def test_a_password_change_revokes_every_token_and_says_so(client, make_user):
    from armada_web.accounts.services import create_token

    user = make_user("kit")
    _token, secret = create_token(user=user, name="cli")
    client.force_login(user)
    assert "revokes your API tokens" in client.get("/accounts/password/").content.decode()
    tokens = client.get("/accounts/profile/").content.decode()  # where the tokens are listed, it says so too
    assert "Changing or resetting your password revokes every token" in tokens and "keeps them" not in tokens
    wrong = client.post("/accounts/password/", {"old_password": "not-it", "new_password1": "change-long-pass-99",
                                                "new_password2": "change-long-pass-99"})
    assert wrong.status_code == 200  # refused: the token stays
    assert client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 200
    done = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "change-long-pass-99",
                                               "new_password2": "change-long-pass-99"}, follow=True)
    assert "API tokens are revoked" in done.content.decode()
    assert client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 401


def test_a_password_reset_revokes_every_token(client, make_user):
    from armada_web.accounts.services import create_token

    user = make_user("kim", email="kim@example.org")
    _token, secret = create_token(user=user, name="cli")
    client.post("/accounts/password/reset/", {"email": "kim@example.org"})
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body).group(1)
    set_url = client.get(link, follow=True).redirect_chain[-1][0]
    client.post(set_url, {"new_password1": "reset-long-pass-99", "new_password2": "reset-long-pass-99"})
    assert client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 401


def test_the_openapi_schema_is_valid_and_unknown_api_paths_answer_json(client):
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.validation import validate_schema

    validate_schema(SchemaGenerator().get_schema(request=None, public=True))
    response = client.get("/api/nothing/here/")
    assert response.status_code == 404 and response.json() == {"detail": "no such API path: /api/nothing/here/"}


def test_a_retired_bot_has_no_active_version_to_choose(api):
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot, retire_bot, upload_version

    client = api()
    bot = create_bot(user=client.user, name="old-timer", game="galaxy")
    version = upload_version(bot=bot, user=client.user, filename="main.py", data=b"print(1)\n")
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    retire_bot(bot=bot, user=client.user)
    response = client.post(f"/api/bots/{bot.pk}/active/", {"version": version.pk}, format="json")
    assert response.status_code == 409 and "retired" in response.json()["detail"]  # the bot's state


def test_the_token_limit_holds_on_the_profile_page_and_the_api_alike(client, make_user, settings):
    """The limit lives in the service: POST /api/tokens/ used to create any number."""
    from armada_web.accounts.models import ApiToken

    settings.ARMADA = settings.ARMADA.with_(max_tokens=2)
    user = make_user("tia")
    body = {"username": "tia", "password": PASSWORD, "name": "cli"}
    for _ in range(2):
        assert client.post("/api/tokens/", body, content_type="application/json").status_code == 201
    refused = client.post("/api/tokens/", body, content_type="application/json")
    assert refused.status_code == 400
    assert refused.json() == {"detail": "you have 2 tokens already; revoke some first"}
    client.force_login(user)
    page = client.post("/accounts/profile/", {"name": "laptop", "password": PASSWORD})
    assert page.status_code == 200 and "you have 2 tokens already" in page.content.decode()
    assert ApiToken.objects.filter(user=user).count() == 2


def test_every_way_of_setting_a_password_revokes_the_tokens_but_a_hash_upgrade_does_not(client, make_user,
                                                                                       monkeypatch, settings):
    """The admin's forms and `manage.py changepassword` set passwords too; a hash upgraded at
    log-in (a stronger hasher after an upgrade of Django) is the same password and revokes nothing."""
    from django.contrib.auth.hashers import MD5PasswordHasher
    from django.core.management import call_command

    from armada_web.accounts.services import create_token

    def alive(secret: str) -> bool:
        return client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 200

    staff = make_user("root", is_staff=True, is_superuser=True)
    user = make_user("lee")
    _token, secret = create_token(user=user, name="cli")
    _token, staff_secret = create_token(user=staff, name="cli")
    client.force_login(staff)
    answer = client.post(f"/admin/auth/user/{user.pk}/password/", {
        "password1": "admin-set-pass-91", "password2": "admin-set-pass-91", "usable_password": "true"})
    assert answer.status_code == 302 and not alive(secret)  # staff set another account's password
    assert client.get("/admin/password_change/").url == "/accounts/password/"  # the admin's link: the site's form
    answer = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "staff-new-pass-92",
                                                 "new_password2": "staff-new-pass-92"})
    assert answer.status_code == 302 and not alive(staff_secret)  # staff's own password
    _token, secret = create_token(user=user, name="cli")
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "command-pass-93")
    call_command("changepassword", "lee", stdout=io.StringIO())
    assert not alive(secret)

    _token, secret = create_token(user=user, name="cli")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher",
                                 "django.contrib.auth.hashers.MD5PasswordHasher"]
    user.refresh_from_db()
    user.password = MD5PasswordHasher().encode("command-pass-93", MD5PasswordHasher().salt())
    user.save(update_fields=["password"])
    assert alive(secret)
    assert client.login(username="lee", password="command-pass-93")  # upgrades the hash to PBKDF2
    user.refresh_from_db()
    assert user.password.startswith("pbkdf2_") and alive(secret)


@pytest.mark.parametrize("name", ["lap\u202etop", "\u2066laptop", "lap\u200btop", "lap\u200dtop", "a\u2028b",
                                  "lap\ttop"])
def test_a_token_name_refuses_what_a_team_name_refuses(client, make_user, name):
    """A direction override (U+202E) turns the rest of its cell; a zero-width mark hides a
    difference: refused on the API and the profile page, as in a team's name."""
    from armada_web.accounts.models import ApiToken
    from armada_web.teams.logic.names import name_problem

    assert name_problem(name) is not None  # the team-name check refuses it too
    user = make_user("uma")
    refused = client.post("/api/tokens/", {"username": "uma", "password": PASSWORD, "name": name},
                          content_type="application/json")
    assert refused.status_code == 400 and "may not hold control characters" in refused.json()["detail"]
    client.force_login(user)
    page = client.post("/accounts/profile/", {"name": name, "password": PASSWORD})
    assert "may not hold control characters" in page.content.decode()
    assert not ApiToken.objects.filter(user=user).exists()


def test_a_token_name_keeps_its_own_scripts_and_emoji(client, make_user):
    make_user("vic")
    for name in ("ноутбук", "لپ‌تاپ".replace("\u200c", ""), "laptop 💻", "  two  words "):
        answer = client.post("/api/tokens/", {"username": "vic", "password": PASSWORD, "name": name},
                             content_type="application/json")
        assert answer.status_code == 201, (name, answer.json())
    assert answer.json()["name"] == "two words"


def test_a_token_name_of_64_characters_is_kept_and_one_more_is_refused(client, make_user):
    """TOKEN_NAME_MAX's edge in `clean_token_name` (counted once its spaces are folded): 64 characters
    fit, 65 are refused; the API refuses 65 too, and keeps 64."""
    from armada_web.accounts.models import ApiToken
    from armada_web.accounts.services import clean_token_name
    from armada_web.web.errors import Invalid

    assert clean_token_name(name="n" * 30 + "   " + "m" * 33 + " ") == "n" * 30 + " " + "m" * 33
    with pytest.raises(Invalid, match=r"^token name too long: 65 characters \(at most 64\)$"):
        clean_token_name(name="n" * 32 + "    " + "m" * 32)  # 65 once folded
    make_user("wes")

    def ask(name):
        return client.post("/api/tokens/", {"username": "wes", "password": PASSWORD, "name": name},
                           content_type="application/json")

    assert ask("n" * 64).status_code == 201
    assert ask("n" * 65).status_code == 400
    assert list(ApiToken.objects.filter(user__username="wes").values_list("name", flat=True)) == ["n" * 64]


@pytest.mark.parametrize("name", ["..", "."])
def test_the_admin_neither_creates_nor_renames_a_user_to_only_dots(client, make_user, name):
    """Staff add and rename users in Django's admin: the same rule as sign-up (`check_username`),
    so no profile address `/users/../` is made there either; an older such account still saves."""
    from django.contrib.auth.models import User

    staff = User.objects.create_superuser(username="boss", email="", password=PASSWORD)
    client.force_login(staff)
    added = client.post("/admin/auth/user/add/", {"username": name, "password1": "admin-set-pass-91",
                                                  "password2": "admin-set-pass-91", "usable_password": "true"})
    assert added.status_code == 200 and "cannot be only dots" in added.content.decode()
    assert not User.objects.filter(username=name).exists()
    user = make_user("erin")
    form = {"username": name, "password": "x", "is_active": "on", "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00", "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"}
    renamed = client.post(f"/admin/auth/user/{user.pk}/change/", form)
    assert renamed.status_code == 200 and "cannot be only dots" in renamed.content.decode()
    user.refresh_from_db()
    assert user.username == "erin"
    older = make_user("...")
    kept = client.post(f"/admin/auth/user/{older.pk}/change/", {**form, "username": "...", "is_active": ""})
    assert kept.status_code == 302, kept.content.decode()[:2000]
    older.refresh_from_db()
    assert older.username == "..." and not older.is_active


def test_the_reading_rule_itself_reduces_look_alikes_to_ascii(make_user):
    """D-S-34 in the service, whatever the database's own case folding."""
    from armada_web.accounts.services import check_username
    from armada_web.web.errors import Invalid

    make_user("alicetc")
    for name in ("\u0251licetc", "al\u0131cetc", "ALIC\u00c9TC", "\u1d00licetc"):
        with pytest.raises(Invalid, match="reads as 'alicetc', an existing user's name"):
            check_username(username=name)
    assert check_username(username="b\u00e9atrice") == "b\u00e9atrice"
    # a security trial: names wholly in Cyrillic or Greek letters that look Latin (one alphabet each)
    make_user("pepe")
    for name in ("\u0440\u0435\u0440\u0435", "\u0420\u0415\u0420\u0415", "\u03a1\u0395\u03a1\u0395"):
        with pytest.raises(Invalid, match="reads as 'pepe', an existing user's name"):
            check_username(username=name)
    assert check_username(username="\u0421\u0430\u0448\u0430") == "\u0421\u0430\u0448\u0430"  # Sasha: no ASCII reading


def test_a_device_cookie_counts_only_for_its_own_account_and_password(make_user):
    """A live trial: the cookie named the account by its name folded to lower case, so a second
    account whose name differed only in case (SQLite's iexact folds ASCII alone) gave the first
    unlimited budgets, and a deleted account's cookie counted for the next one of its name. It names
    the account by id and its password of then."""
    from django.http import HttpResponse
    from django.test import RequestFactory

    from armada_web.accounts import devices

    def cookie_of(user):
        response = HttpResponse()
        devices.remember(response=response, user=user)
        request = RequestFactory().post("/accounts/login/")
        request.COOKIES[devices.COOKIE] = response.cookies[devices.COOKIE].value
        return request

    upper, lower = make_user("ЖУКОВ"), make_user("жуков")
    mine = cookie_of(lower)
    assert devices.known(request=mine, username="жуков") and devices.known(request=mine, username=" жуков ")
    assert devices.known(request=mine, username="ЖУКОВ") is None and upper.pk != lower.pk
    lower.set_password("another-long-pass-1")
    lower.save()
    assert devices.known(request=mine, username="жуков") is None  # a new password: every browser signs in again
    theirs = cookie_of(lower)
    lower.delete()
    make_user("жуков")
    assert devices.known(request=theirs, username="жуков") is None  # not the account it was made for


@pytest.mark.parametrize(("first", "second"), [("жуков", "ЖУКОВ"), ("λαμδα", "ΛΑΜΔΑ"), ("carol", "CAROL")])
def test_a_name_taken_in_another_case_is_refused_in_any_alphabet(client, first, second):
    """A live trial: on SQLite, whose iexact folds ASCII letters alone, "ЖУКОВ" signed up beside
    "жуков" (two accounts a reader cannot tell apart; the device cookie then mixed them up)."""
    from django.contrib.auth.models import User

    body = {"password1": PASSWORD, "password2": PASSWORD}
    assert client.post("/accounts/signup/", {"username": first, **body}).status_code == 302
    client.logout()
    refused = client.post("/accounts/signup/", {"username": second, **body})
    assert refused.status_code in (200, 409) and "A user with that username already exists." in refused.content.decode()
    assert list(User.objects.filter(username__in=[first, second]).values_list("username", flat=True)) == [first]


def test_changing_the_password_keeps_this_browser_the_accounts(client, make_user):
    """A new password ends every browser's device mark (accounts.devices), but the browser that
    changed it stays signed in: it is marked again, with the new password."""
    from django.test import RequestFactory

    from armada_web.accounts import devices

    client.force_login(make_user("nora"))
    changed = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "a-new-long-pass-9",
                                                  "new_password2": "a-new-long-pass-9"})
    assert changed.status_code == 302
    request = RequestFactory().post("/accounts/login/")
    request.COOKIES[devices.COOKIE] = changed.cookies[devices.COOKIE].value
    assert devices.known(request=request, username="nora")
