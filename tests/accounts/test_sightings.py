"""Where accounts are seen from (accounts.sightings): a row per sign-up, sign-in and token created,
token use at most once an hour per address, X-Forwarded-For only from a trusted proxy, and
retention (`prune_storage --apply`)."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.utils import timezone

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


def seen(username: str) -> list[tuple[str, str]]:
    from armada_web.accounts.models import Sighting

    return list(Sighting.objects.filter(user__username=username).order_by("pk").values_list("kind", "address"))


def test_sign_up_and_sign_in_on_the_site_are_recorded_with_the_address(client, make_user):
    response = client.post("/accounts/signup/", {"username": "dora", "email": "", "password1": PASSWORD,
                                                  "password2": PASSWORD}, REMOTE_ADDR="198.51.100.7")
    assert response.status_code == 302
    assert seen("dora") == [("signup", "198.51.100.7")]
    client.post("/accounts/logout/")
    response = client.post("/accounts/login/", {"username": "dora", "password": PASSWORD}, REMOTE_ADDR="203.0.113.4")
    assert response.status_code == 302
    client.post("/accounts/login/", {"username": "dora", "password": "wrong"}, REMOTE_ADDR="203.0.113.5")
    assert seen("dora") == [("signup", "198.51.100.7"), ("login", "203.0.113.4")]  # a failure is nobody's sign-in


def test_a_token_from_the_api_is_a_sign_in_and_a_token_and_one_from_the_profile_a_token(client, make_user):
    make_user("erin")
    response = client.post("/api/tokens/", {"username": "erin", "password": PASSWORD, "name": "cli"},
                           content_type="application/json", REMOTE_ADDR="192.0.2.10")
    assert response.status_code == 201
    assert seen("erin") == [("login", "192.0.2.10"), ("token", "192.0.2.10")]
    client.force_login(make_user("fay"))
    made = client.post("/accounts/profile/", {"name": "laptop", "password": PASSWORD}, REMOTE_ADDR="192.0.2.11")
    assert made.status_code == 302
    assert seen("fay") == [("token", "192.0.2.11")]


def test_token_use_is_recorded_once_an_hour_per_address(client, make_user):
    from armada_web.accounts import sightings
    from armada_web.accounts.models import ApiToken

    make_user("gus")
    secret = client.post("/api/tokens/", {"username": "gus", "password": PASSWORD, "name": "cli"},
                         content_type="application/json", REMOTE_ADDR="192.0.2.1").json()["token"]
    auth = {"HTTP_AUTHORIZATION": f"Token {secret}"}
    for _ in range(5):
        assert client.get("/api/me/", REMOTE_ADDR="192.0.2.1", **auth).status_code == 200
    assert client.get("/api/me/", REMOTE_ADDR="192.0.2.2", **auth).status_code == 200
    uses = [row for row in seen("gus") if row[0] == "token-use"]
    assert uses == [("token-use", "192.0.2.1"), ("token-use", "192.0.2.2")]
    assert client.get("/api/me/", REMOTE_ADDR="192.0.2.9", HTTP_AUTHORIZATION="Token wrong").status_code == 401
    # The cache forgot (cleared, Redis down): the database still holds it to one row an hour.
    token = ApiToken.objects.get(user__username="gus")
    request = type("Request", (), {"META": {"REMOTE_ADDR": "192.0.2.1"}})()
    cache.clear()
    assert sightings.record_token_use(token=token, request=request) is False
    cache.clear()
    later = timezone.now() + timedelta(minutes=61)
    assert sightings.record_token_use(token=token, request=request, now=later) is True


def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(client, make_user, armada):
    armada(trusted_proxies=("10.0.0.0/8",))
    make_user("hal")
    form = {"username": "hal", "password": PASSWORD}
    client.post("/accounts/login/", form, REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.8")
    client.post("/accounts/logout/")
    client.post("/accounts/login/", form, REMOTE_ADDR="198.51.100.1", HTTP_X_FORWARDED_FOR="203.0.113.8")
    assert seen("hal") == [("login", "203.0.113.8"), ("login", "198.51.100.1")]


def test_old_sightings_are_pruned_by_prune_storage(make_user, armada):
    from armada_web.accounts.models import Sighting, SightingKind

    armada(sightings_keep_days=30)
    user = make_user("ivy")
    now = timezone.now()
    for days in (31, 29):
        Sighting.objects.create(user=user, kind=SightingKind.LOGIN, address="192.0.2.3", at=now - timedelta(days=days))
    out = io.StringIO()
    call_command("prune_storage", stdout=out)
    assert "sign-in records older than ARMADA_SIGHTINGS_KEEP_DAYS: 1" in out.getvalue()
    assert Sighting.objects.count() == 2  # a report deletes nothing
    call_command("prune_storage", "--apply", stdout=out)
    assert "deleted 1 sign-in records" in out.getvalue()
    assert list(Sighting.objects.values_list("at", flat=True)) == [now - timedelta(days=29)]
