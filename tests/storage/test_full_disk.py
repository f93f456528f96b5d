"""A full disk under the local storage: /healthz fails with the reason, an upload answers 503 with a
message and leaves no row and no half-written file, a match played to the end leaves none of its
files and is given back, void with the reason after its last attempt; a disk below
ARMADA_STORAGE_MIN_FREE_MB fails /healthz first. The disk is a small tmpfs mounted for the test (root)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.services import missing, require_docker

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_disk(tmp_path, settings, armada):
    """The site's storage on a 4 MiB disk of its own."""
    if os.geteuid() != 0:
        missing("mounting a small disk (tmpfs) for the storage needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "armada_web.storage.objectstore.PrivateFileStorage",
        "OPTIONS": {"location": str(mount / "private"), "min_free_mb": 0}}}
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> None:
    """Write until the disk is full (the last block too)."""
    with open(disk / "filler", "wb", buffering=0) as handle:
        for size in (1 << 16, 1 << 12, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError:
                continue


def stored(disk: Path) -> list[str]:
    return sorted(str(p.relative_to(disk / "private")) for p in (disk / "private").rglob("*") if p.is_file())


def test_healthz_fails_below_the_free_space_floor_and_on_a_full_disk(small_disk, client, settings):
    settings.STORAGES["default"]["OPTIONS"]["min_free_mb"] = 8  # more than the whole disk
    settings.STORAGES = {**settings.STORAGES}
    data = client.get("/healthz").json()
    assert "storage" in data["failed"]
    assert "MiB free, less than ARMADA_STORAGE_MIN_FREE_MB=8" in data["checks"]["storage"]["detail"]
    settings.STORAGES["default"]["OPTIONS"]["min_free_mb"] = 0
    settings.STORAGES = {**settings.STORAGES}
    assert client.get("/healthz").json()["checks"]["storage"]["ok"]
    fill(small_disk)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "No space left on device" in response.json()["checks"]["storage"]["detail"]
    assert stored(small_disk) == []  # the failed probe left nothing


def test_an_upload_on_a_full_disk_is_503_and_leaves_nothing(small_disk, api, make_user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot

    user = make_user("filler")
    bot = create_bot(user=user, name="full", game="galaxy")
    fill(small_disk)
    response = api(user).post(f"/api/bots/{bot.pk}/versions/",
                              {"file": SimpleUploadedFile("main.py", b"print(1)\n" * 2000)}, format="multipart")
    assert response.status_code == 503
    assert response.json()["detail"] == "storage unavailable, nothing was saved (OSError); try again"
    assert not BotVersion.objects.filter(bot=bot).exists()
    assert stored(small_disk) == []  # not even a half-written file under a temporary name


def test_a_match_whose_files_cannot_be_saved_is_given_back_then_void_and_leaves_none(
        small_disk, make_user, valid_version, settings, monkeypatch):
    require_docker()
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match
    from armada_web.matches.tasks import run_match

    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue, match_attempts=2)
    settings.ARMADA = settings.ARMADA.with_game("galaxy", match_config={"max_turns": 20})
    first, second = valid_version(make_user("ann"), "alpha"), valid_version(make_user("ben"), "bravo")
    archives = stored(small_disk)
    fill(small_disk)  # the archives are there; the replay and logs will not fit
    match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=2)
    sent: list[int] = []
    monkeypatch.setattr("armada_web.matches.tasks.send", lambda match_id, kind, countdown=0: sent.append(match_id))
    assert run_match(match.pk) == "queued" and sent == [match.pk]  # another attempt: the storage may be back
    match = Match.objects.get(pk=match.pk)
    assert match.status == "queued" and "retrying after a platform failure: storage failed" in match.reason
    assert stored(small_disk) == archives  # (nothing of the first attempt left)
    assert run_match(match.pk) == "void"  # the last attempt
    match = Match.objects.get(pk=match.pk)
    assert match.reason.startswith("platform failure: storage failed while saving the replay or logs (OSError: ")
    assert "No space left on device" in match.reason
    assert not match.replay.name and all(p.result == "" and not p.log.name for p in match.participants.all())
    assert not RatingChange.objects.exists()
    assert stored(small_disk) == archives  # none of the match's files, not even half of one
