"""Staff in the admin: the bot list with its filters and search, the disable/enable/retire
actions, re-running a version's validation, and disabling a user (their tokens stop working)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from armada_web.bots import activation, services
from armada_web.bots.models import Bot, BotVersion, VersionStatus

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def admin_client_(make_user) -> Client:
    root = make_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(root)
    return client


@pytest.fixture
def bots(make_user) -> dict[str, Bot]:
    alice, bob = make_user("alice"), make_user("bob")
    made = {
        "alpha": services.create_bot(user=alice, name="alpha", game="galaxy", description="fast expander"),
        "beta": services.create_bot(user=alice, name="beta", game="mothership"),
        "gamma": services.create_bot(user=bob, name="gamma", game="galaxy"),
        "delta": services.create_bot(user=bob, name="delta", game="mothership", description="slow and careful"),
    }
    services.set_disabled(bot=made["gamma"], disabled=True, reason="cheating")
    services.set_disabled(bot=made["delta"], disabled=True, reason="cheating")
    return made


def changelist(client: Client, url: str, **params: Any) -> set[str]:
    response = client.get(url, params)
    assert response.status_code == 200, response.content[:500]
    return {str(obj) for obj in response.context["cl"].result_list}


def bot_names(client: Client, **params: Any) -> set[str]:
    response = client.get("/admin/bots/bot/", params)
    assert response.status_code == 200  # an unknown filter would redirect to ?e=1
    return {bot.name for bot in response.context["cl"].result_list}


def run_action(client: Client, url: str, action: str, ids: list[int]) -> Any:
    response = client.post(url, {"action": action, "_selected_action": ids, "index": 0})
    assert response.status_code == 302, response.content[:500]
    return client.get(response["Location"])


def test_bot_changelist_filters_and_search(admin_client_, bots):
    client = admin_client_
    assert bot_names(client) == {"alpha", "beta", "gamma", "delta"}
    assert bot_names(client, game="galaxy") == {"alpha", "gamma"}
    assert bot_names(client, game="mothership") == {"beta", "delta"}
    assert bot_names(client, disabled__exact=1) == {"gamma", "delta"}
    assert bot_names(client, disabled__exact=0) == {"alpha", "beta"}
    assert bot_names(client, game="galaxy", disabled__exact=1) == {"gamma"}
    assert bot_names(client, q="alp") == {"alpha"}
    assert bot_names(client, q="bob") == {"gamma", "delta"}  # the owner's username
    assert bot_names(client, q="careful") == {"delta"}  # the description
    services.retire_bot(bot=bots["beta"], user=bots["beta"].owner)
    assert bot_names(client, retired__isempty=0) == {"beta"}
    assert bot_names(client, retired__isempty=1) == {"alpha", "gamma", "delta"}
    page = client.get("/admin/bots/bot/", {"game": "galaxy"}).content.decode()
    assert "alpha" in page and "gamma" in page and "beta" not in page


def test_disable_and_enable_actions(admin_client_, bots):
    client = admin_client_
    ids = [bots["alpha"].pk, bots["beta"].pk]
    asked = client.post("/admin/bots/bot/", {"action": "disable", "_selected_action": ids, "index": 0})
    # an organiser's trial: it asked nothing, and the bots' pages said "disabled by staff (admin)"
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert not Bot.objects.filter(pk__in=ids, disabled=True).exists()  # nothing yet
    refused = client.post("/admin/bots/bot/", {"action": "disable", "_selected_action": ids, "index": 0,
                                               "apply": "yes", "reason": "bad\x1b[31m"})
    assert refused.status_code == 200 and "may not hold control characters" in refused.content.decode()
    assert not Bot.objects.filter(pk__in=ids, disabled=True).exists()
    done = client.post("/admin/bots/bot/", {"action": "disable", "_selected_action": ids, "index": 0,
                                            "apply": "yes", "reason": "crashes   the <b>referee</b>"})
    assert done.status_code == 302
    assert "2 bot(s) disabled." in client.get(done["Location"]).content.decode()
    for bot in Bot.objects.filter(pk__in=ids):
        assert bot.disabled and bot.disabled_reason == "crashes the <b>referee</b> (root)"
        assert not bot.is_active
    assert not Bot.objects.filter(pk__in=ids, disabled=False).exists()
    page = client.get(f"/bots/{ids[0]}/").content.decode()
    assert "crashes the &lt;b&gt;referee&lt;/b&gt; (root)" in page
    client.post("/admin/bots/bot/", {"action": "disable", "_selected_action": [bots["gamma"].pk], "index": 0,
                                     "apply": "yes", "reason": ""})
    assert Bot.objects.get(name="gamma").disabled_reason == "disabled by staff (root)"  # none given
    long = client.post("/admin/bots/bot/", {"action": "disable", "_selected_action": [bots["gamma"].pk], "index": 0,
                                            "apply": "yes", "reason": "x" * 200})
    assert "the reason has at most 193 characters here (this one has 200)" in long.content.decode()  # " (root)"

    page = run_action(client, "/admin/bots/bot/", "enable", [bots["alpha"].pk, bots["gamma"].pk])
    assert "2 bot(s) enabled." in page.content.decode()
    states = dict(Bot.objects.values_list("name", "disabled"))
    assert states == {"alpha": False, "beta": True, "gamma": False, "delta": True}
    assert Bot.objects.get(name="gamma").disabled_reason == ""
    assert Bot.objects.get(name="delta").disabled_reason == "cheating"  # not selected: untouched


def test_disable_of_all_the_filtered_bots_posts_back_the_selection_not_every_id(admin_client_, bots, make_user):
    """A review: the page posted one field per bot, and past 1000 Django refuses the request; "select all"
    with the changelist's filters is sent back as the changelist sent it. Staff who may only view bots
    cannot disable them."""
    from django.contrib.auth.models import Permission

    client = admin_client_
    url = "/admin/bots/bot/?game=mothership"
    asked = client.post(url, {"action": "disable", "_selected_action": [bots["beta"].pk], "select_across": "1",
                              "index": 0})
    html = asked.content.decode()
    assert html.count('name="_selected_action"') == 1 and 'name="select_across" value="1"' in html
    assert 'value="Disable 2 bots"' in html  # beta and delta: every bot the filter shows
    done = client.post(url, {"action": "disable", "_selected_action": [bots["beta"].pk], "select_across": "1",
                             "index": 0, "apply": "yes", "reason": "season over"})
    assert done.status_code == 302
    assert set(Bot.objects.filter(disabled_reason="season over (root)").values_list("name", flat=True)) == {
        "beta", "delta"}
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_bot"))
    client.force_login(viewer)
    refused = client.post("/admin/bots/bot/", {"action": "disable", "_selected_action": [bots["alpha"].pk],
                                               "index": 0, "apply": "yes", "reason": "no"})
    assert not Bot.objects.get(name="alpha").disabled and refused.status_code in (200, 302)


def test_retire_action(admin_client_, bots):
    run_action(admin_client_, "/admin/bots/bot/", "retire", [bots["alpha"].pk])
    retired = {b.name for b in Bot.objects.exclude(retired=None)}
    assert retired == {"alpha"}


def test_non_staff_cannot_run_actions(make_user, bots):
    client = Client()
    client.force_login(make_user("mallory"))
    response = client.post("/admin/bots/bot/", {"action": "enable", "_selected_action": [bots["gamma"].pk]})
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert Bot.objects.get(name="gamma").disabled


@pytest.fixture
def versions(bots) -> dict[str, BotVersion]:
    bot = bots["alpha"]
    owner = bot.owner
    finished = services.upload_version(bot=bot, user=owner, filename="main.py", data=b"print(1)\n")
    running = services.upload_version(bot=bot, user=owner, filename="main.py", data=b"print(2)\n")
    now = timezone.now()
    BotVersion.objects.filter(pk=finished.pk).update(status=VersionStatus.ERROR, attempts=3, detail="Docker down",
                                                     started=now, finished=now)
    BotVersion.objects.filter(pk=running.pk).update(status=VersionStatus.VALIDATING, attempts=1, started=now)
    return {"finished": finished, "running": running}


def test_rerun_validation_action(admin_client_, versions):
    ids = [versions["finished"].pk, versions["running"].pk]
    page = run_action(admin_client_, "/admin/bots/botversion/", "rerun_validation", ids)
    assert "1 version(s) queued for validation (1 being validated now were left alone)." in page.content.decode()
    finished = BotVersion.objects.get(pk=versions["finished"].pk)
    assert finished.status == VersionStatus.PENDING
    assert finished.attempts == 0 and finished.detail == ""
    assert finished.started is None and finished.finished is None and finished.queued is not None
    running = BotVersion.objects.get(pk=versions["running"].pk)
    assert running.status == VersionStatus.VALIDATING and running.attempts == 1


def test_version_changelist_filters(admin_client_, versions):
    client = admin_client_
    assert changelist(client, "/admin/bots/botversion/", status="error") == {"alpha v1"}
    assert changelist(client, "/admin/bots/botversion/", status="validating") == {"alpha v2"}
    assert changelist(client, "/admin/bots/botversion/", q="docker") == {"alpha v1"}
    assert changelist(client, "/admin/bots/botversion/", bot__game="mothership") == set()


def test_version_change_page_is_read_only(admin_client_, versions):
    version = versions["finished"]
    url = f"/admin/bots/botversion/{version.pk}/change/"
    assert admin_client_.get(url).status_code == 200
    admin_client_.post(url, {"status": "valid", "detail": "", "sha256": "0" * 64, "size": 1, "log": "forged"})
    version.refresh_from_db()
    assert version.log == ""  # read-only in the admin


def user_form(user: User, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "username": user.username, "first_name": user.first_name, "last_name": user.last_name,
        "email": user.email, "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"), "last_login_0": "", "last_login_1": "",
    }
    if user.is_active:
        data["is_active"] = "on"
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def test_disabling_a_user_stops_their_token(admin_client_, api, make_user):
    carol = make_user("carol")
    client = api(carol)
    assert client.get("/api/me/").status_code == 200
    assert changelist(admin_client_, "/admin/auth/user/", q="carol") == {"carol"}
    response = admin_client_.post(f"/admin/auth/user/{carol.pk}/change/", user_form(carol, is_active=None))
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    carol.refresh_from_db()
    assert not carol.is_active
    assert changelist(admin_client_, "/admin/auth/user/", is_active__exact=0) == {"carol"}
    denied = client.get("/api/me/")
    assert denied.status_code == 401
    assert denied.json() == {"detail": "User inactive or deleted."}

    response = admin_client_.post(f"/admin/auth/user/{carol.pk}/change/", user_form(carol, is_active="on"))
    assert response.status_code == 302
    assert client.get("/api/me/").status_code == 200  # re-enabled: the same token works again


def test_token_admin_shows_no_secret(admin_client_, api, make_user):
    from armada_web.accounts.services import create_token

    token, secret = create_token(user=make_user("dave"), name="laptop")
    assert changelist(admin_client_, "/admin/accounts/apitoken/", q="dave") == {"laptop (dave)"}
    page = admin_client_.get(f"/admin/accounts/apitoken/{token.pk}/change/")
    assert page.status_code == 200
    assert secret not in page.content.decode()
    assert admin_client_.get("/admin/accounts/apitoken/add/").status_code == 403


@pytest.fixture
def stored(make_user) -> tuple[User, Bot, BotVersion]:
    """A user with a bot whose version has an archive in storage and a log."""
    erin = make_user("erin")
    bot = services.create_bot(user=erin, name="erinbot", game="galaxy")
    version = services.upload_version(bot=bot, user=erin, filename="main.py", data=b"print('erin')\n")
    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.VALID, log="SECRET-LOG-erin")
    activation.refresh_active(bot=bot)
    version.refresh_from_db()
    return erin, bot, version


def test_deleting_a_user_in_the_admin_is_deleting_the_account(admin_client_, stored,
                                                               django_capture_on_commit_callbacks):
    from django.core.files.storage import default_storage

    erin, bot, version = stored
    assert default_storage.exists(version.archive.name)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client_.post(f"/admin/auth/user/{erin.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not User.objects.filter(pk=erin.pk).exists()
    bot.refresh_from_db()
    assert bot.owner is None
    assert bot.retired is not None and not bot.is_active
    fresh = BotVersion.objects.get(pk=version.pk)
    assert fresh.log == "" and fresh.archive.name == ""
    assert not default_storage.exists(version.archive.name)


def test_deleting_a_bot_in_the_admin_removes_its_archives(admin_client_, stored,
                                                          django_capture_on_commit_callbacks):
    from django.core.files.storage import default_storage

    _erin, bot, version = stored
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client_.post(f"/admin/bots/bot/{bot.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Bot.objects.filter(pk=bot.pk).exists()
    assert not default_storage.exists(version.archive.name)


def test_retire_action_retires_an_ownerless_bot(admin_client_, stored):
    _erin, bot, _version = stored
    Bot.objects.filter(pk=bot.pk).update(owner=None)  # what deleting the user in the admin leaves behind
    run_action(admin_client_, "/admin/bots/bot/", "retire", [bot.pk])
    bot.refresh_from_db()
    assert bot.retired is not None


def test_a_staff_reason_is_signed_and_bounded_in_the_service():
    """`services.staff_reason`: the typed reason, its spaces folded, signed with the staff member's
    name (a default without one); past what fits with the signature in DISABLED_REASON_MAX, refused."""
    from armada_web.web.errors import Invalid

    most = services.staff_reason_max(staff="olga")
    assert most == services.DISABLED_REASON_MAX - len(" (olga)") == 193
    assert services.staff_reason(given="  copies\n another   bot ", staff="olga") == "copies another bot (olga)"
    assert services.staff_reason(given="", staff="olga") == "disabled by staff (olga)"
    assert len(services.staff_reason(given="r" * most, staff="olga")) == services.DISABLED_REASON_MAX
    with pytest.raises(Invalid, match="at most 193 characters here \\(this one has 194\\)"):
        services.staff_reason(given="r" * (most + 1), staff="olga")


def test_deleting_the_owner_keeps_an_earlier_retirement_date(make_user):
    """The account's deletion retires its bots; one retired before keeps the day it was."""
    from datetime import timedelta

    from armada_web.accounts.services import delete_account
    from tests.support.fixtures import PASSWORD

    owner = make_user("rita")
    bot = services.create_bot(user=owner, name="oldie", game="galaxy")
    then = timezone.now() - timedelta(days=3)
    Bot.objects.filter(pk=bot.pk).update(retired=then)
    delete_account(user=owner, password=PASSWORD)
    bot.refresh_from_db()
    assert bot.owner is None and bot.retired == then
