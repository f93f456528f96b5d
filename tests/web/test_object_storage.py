"""Object storage: with ARMADA_S3_BUCKET set, archives, replays and logs go to an S3-compatible
bucket (moto's standalone server over real HTTP on loopback, tests/storage_server.py) under the
same names as in the local folder; they reach users only through the site's own permission
checks; retention lists and prunes the bucket; and a missing bucket or an unreachable endpoint
answers 503 with a message, fails /healthz with the reason, voids matches with the reason and
leaves nothing half-written counted."""

from __future__ import annotations

import gzip
import io
import json
import re
import urllib.error
import urllib.request
import uuid
import zipfile
from typing import Any

import pytest

from tests.localsite import free_port
from tests.web.test_matches_live import wait_match
from tests.web.test_validation_live import call, token_for, upload, wait_for

pytestmark = [pytest.mark.docker, pytest.mark.redis]


def use_bucket(settings: Any, monkeypatch: Any, bucket: Any, name: str | None = None,
               endpoint_url: str | None = None) -> None:
    """Point this test process's storage at `bucket` (as settings.py does for ARMADA_S3_BUCKET)."""
    for key, value in bucket.env().items():
        monkeypatch.setenv(key, value)
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "armada_web.storage.objectstore.PrivateS3Storage",
        "OPTIONS": {"bucket_name": name or bucket.name, "endpoint_url": endpoint_url or bucket.endpoint_url,
                    "timeout_s": 3}}}


def keys(bucket: Any) -> list[str]:
    listed = bucket.client().list_objects_v2(Bucket=bucket.name)
    return sorted(entry["Key"] for entry in listed.get("Contents", []))


@pytest.mark.slow
def test_uploads_validation_a_match_and_retention_through_the_bucket(live_site_factory, s3_bucket, settings,
                                                                      monkeypatch, armada, tmp_path):
    from armada.botspec import starter_file
    from armada_web.bots.models import BotVersion
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    use_bucket(settings, monkeypatch, s3_bucket)
    site = live_site_factory(env=s3_bucket.env())
    alice, bob = token_for(site, "alice"), token_for(site, "bob")
    source = starter_file("greedy", "galaxy").read_bytes()
    mine = upload(site, alice, "galaxy", "alpha", "main.py", source)
    theirs = upload(site, bob, "galaxy", "bravo", "main.py", starter_file("random", "galaxy").read_bytes())
    for token, version in ((alice, mine), (bob, theirs)):
        assert wait_for(site, token, version["id"], ("valid", "invalid", "error"))["status"] == "valid"
    first, second = BotVersion.objects.get(pk=mine["id"]), BotVersion.objects.get(pk=theirs["id"])
    # the archives are objects under today's names; nothing went to the local folder
    assert re.fullmatch(rf"versions/{first.bot_id}/1-[0-9a-f]{{16}}\.zip", first.archive.name)
    assert {first.archive.name, second.archive.name} <= set(keys(s3_bucket))
    assert not (tmp_path / "private" / "versions").exists()

    match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=11)
    done = wait_match(match.pk, ("finished", "void", "failed"), 240)
    assert done.status == "finished", (done.reason, site.log("worker-matches")[-3000:])
    expected = {f"matches/{match.pk}/replay-a1.json.gz", f"matches/{match.pk}/seat-1-a1.log",
                f"matches/{match.pk}/seat-2-a1.log"}
    assert expected <= set(keys(s3_bucket))
    assert done.replay.name == f"matches/{match.pk}/replay-a1.json.gz"

    # the replay is public, through the site
    with urllib.request.urlopen(f"{site.url}/api/matches/{match.pk}/replay/", timeout=30) as response:
        replay = json.loads(gzip.decompress(response.read()))
    assert replay["steps"] and replay["game"] == "galaxy"
    # each seat's log: its owner sees it, the other player and anonymous visitors do not
    _status, seen = call(site, "GET", f"/api/matches/{match.pk}/", alice)
    logs = {p["seat"]: p.get("log") for p in seen["players"]}
    assert logs[1] is not None and logs[2] is None
    _status, anonymous = call(site, "GET", f"/api/matches/{match.pk}/")
    assert all("log" not in p for p in anonymous["players"])
    # the source: its owner downloads the stored zip; anyone else gets a 404
    request = urllib.request.Request(f"{site.url}/api/versions/{first.pk}/source/",
                                     headers={"Authorization": f"Token {alice}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        archive = response.read()
    stored = s3_bucket.client().get_object(Bucket=s3_bucket.name, Key=first.archive.name)["Body"].read()
    assert archive == stored and zipfile.ZipFile(io.BytesIO(archive)).read("main.py") == source
    assert call(site, "GET", f"/api/versions/{first.pk}/source/", bob)[0] == 404
    assert call(site, "GET", f"/api/versions/{first.pk}/source/")[0] == 404
    # the bucket itself gives nothing to a request without credentials, and the storage has no URLs
    for key in (first.archive.name, f"matches/{match.pk}/seat-1-a1.log"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{s3_bucket.endpoint_url}/{s3_bucket.name}/{key}", timeout=10)
        assert refused.value.code == 403
    from django.core.files.storage import default_storage

    with pytest.raises(ValueError, match="no URLs"):
        default_storage.url(first.archive.name)
    # /healthz's storage check reaches the bucket
    _status, health = call(site, "GET", "/healthz")
    assert health["checks"]["storage"]["ok"] and s3_bucket.name in health["checks"]["storage"]["detail"]

    # retention lists the bucket: an object no row names is an orphan, pruned; the match's stay
    from armada_web.matches import retention

    s3_bucket.client().put_object(Bucket=s3_bucket.name, Key=f"matches/{match.pk}/replay-a9.json.gz", Body=b"x")
    armada(orphan_grace_s=0)
    plan = retention.plan()
    assert [(item.name, item.why) for item in plan.items] == [(f"matches/{match.pk}/replay-a9.json.gz", "orphan")]
    assert retention.prune(plan) == (1, 1)
    assert f"matches/{match.pk}/replay-a9.json.gz" not in keys(s3_bucket)
    assert expected <= set(keys(s3_bucket))
    # a challenge past its keeping time: its replay and logs leave the bucket, the row stays
    challenge = create_match(game="galaxy", first=first, second=second, kind="challenge", seed=12)
    assert wait_match(challenge.pk, ("finished", "void", "failed"), 240).status == "finished"
    armada(unranked_keep_days=0)
    assert retention.prune(retention.plan())[0] == 3
    assert not [k for k in keys(s3_bucket) if k.startswith(f"matches/{challenge.pk}/")]
    assert Match.objects.get(pk=challenge.pk).status == "finished"


@pytest.fixture
def uploader(make_user):
    from rest_framework.test import APIClient

    from armada_web.accounts.services import create_token
    from armada_web.bots.services import create_bot

    user = make_user("carol")
    _token, secret = create_token(user=user, name="test")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    bot = create_bot(user=user, name="stored", game="galaxy")
    return client, bot


def _upload(client: Any, bot: Any) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("main.py", b"print(1)\n")},
                       format="multipart")


@pytest.mark.django_db
@pytest.mark.parametrize("fault", ["missing bucket", "unreachable endpoint"])
def test_a_broken_store_answers_503_and_fails_healthz_with_the_reason(fault, s3_bucket, settings, monkeypatch,
                                                                       uploader, client):
    from armada_web.bots.models import BotVersion

    if fault == "missing bucket":
        use_bucket(settings, monkeypatch, s3_bucket, name=f"no-such-bucket-{uuid.uuid4().hex[:8]}")
        reason = "the bucket does not exist"
    else:
        use_bucket(settings, monkeypatch, s3_bucket, endpoint_url=f"http://127.0.0.1:{free_port()}")
        reason = "Could not connect to the endpoint URL"
    api, bot = uploader
    response = _upload(api, bot)
    assert response.status_code == 503
    detail = response.json()["detail"]
    assert detail.startswith("storage unavailable, nothing was saved") and "try again" in detail
    assert not BotVersion.objects.filter(bot=bot).exists()  # nothing half-made is counted
    # the upload page says so too (a page, never a traceback)
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(bot.owner)
    page = client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("main.py", b"print(2)\n")})
    assert page.status_code == 503 and b"storage unavailable" in page.content
    health = client.get("/healthz")
    assert health.status_code == 503 and "storage" in health.json()["failed"]
    assert reason in health.json()["checks"]["storage"]["detail"]


@pytest.mark.django_db
def test_a_lost_bucket_voids_the_match_with_the_reason_and_counts_nothing(s3_bucket, settings, monkeypatch,
                                                                          make_user, valid_version):
    from tests.services import require_docker

    require_docker()
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match
    from armada_web.matches.tasks import run_match

    use_bucket(settings, monkeypatch, s3_bucket)
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)
    first = valid_version(make_user("dave"), "delta")
    second = valid_version(make_user("erin"), "echo")
    match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=3)
    client = s3_bucket.client()
    for key in keys(s3_bucket):  # the bucket goes away (deleted by mistake, a wrong name on the workers)
        client.delete_object(Bucket=s3_bucket.name, Key=key)
    client.delete_bucket(Bucket=s3_bucket.name)
    assert run_match(match.pk) == "void"
    match = Match.objects.get(pk=match.pk)
    assert match.status == "void"
    assert "could not be read from storage (StorageError" in match.reason and "does not exist" in match.reason
    assert not RatingChange.objects.exists() and not match.replay.name
