"""Object storage: with ARMADA_S3_BUCKET set, archives, replays and logs go to an S3-compatible
bucket (moto's standalone server over real HTTP on loopback, tests/support/storage_server.py) under the
same names as in the local folder; they reach users only through the site's own permission
checks; retention lists and prunes the bucket; and a missing bucket or an unreachable endpoint
answers 503 with a message, fails /healthz with the reason, gives matches back with the reason and
leaves nothing half-written counted. (Uploads, validation, a match and retention through the bucket
on a live site: tests/live/test_object_storage_live.py.)"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support.localsite import free_port

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
def test_a_lost_bucket_gives_the_match_back_with_the_reason_and_counts_nothing(s3_bucket, settings, monkeypatch,
                                                                          make_user, valid_version):
    from tests.support.services import require_docker

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
    assert run_match(match.pk) == "queued"  # the platform's problem, and it may pass: another attempt
    match = Match.objects.get(pk=match.pk)
    assert match.status == "queued" and match.reason.startswith("retrying after a platform failure")
    assert "could not be read from storage (StorageError" in match.reason and "does not exist" in match.reason
    assert not RatingChange.objects.exists() and not match.replay.name


def test_a_validation_run_again_never_writes_over_the_replay_the_row_names(s3_bucket, settings, monkeypatch,
                                                                           make_user, valid_version):
    """A reliability review: staff's re-validation starts again at attempt 1, and object storage
    overwrites a name, so the new attempt wrote over the replay the row still named (and deleted it
    when that attempt was superseded). Each save has a name of its own."""
    from armada_web.bots.storage import save_validation_replay

    use_bucket(settings, monkeypatch, s3_bucket)
    version = valid_version(make_user("alice"), "alpha")
    replay = {"format": 1, "game": "galaxy", "seats": [], "turns": [], "result": {}}
    first = save_validation_replay(version, 1, replay)
    again = save_validation_replay(version, 1, replay)
    assert first != again and {first, again} <= set(keys(s3_bucket))
    assert first.startswith(f"versions/{version.bot_id}/{version.number}-validation-a1-")
