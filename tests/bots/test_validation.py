"""Validation bookkeeping in-process: the claim, platform failures and their retries, the
reaper, the active version, the queue message sent on commit. (End to end: tests/live/test_validation_live.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support.services import require_docker, require_redis

pytestmark = pytest.mark.django_db


@pytest.fixture
def version(make_user):
    from armada_web.bots.services import create_bot, upload_version

    owner = make_user()
    bot = create_bot(user=owner, name="checked", game="galaxy")
    return upload_version(bot=bot, user=owner, filename="main.py", data=b"print(1)\n")


def test_upload_sends_the_task_to_the_validation_queue_on_commit(make_user, settings,
                                                                  django_capture_on_commit_callbacks):
    require_redis()
    import redis

    from armada_web.bots.services import create_bot, upload_version

    owner = make_user()
    bot = create_bot(user=owner, name="queued", game="galaxy")
    connection = redis.Redis.from_url(settings.REDIS_URL)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        upload_version(bot=bot, user=owner, filename="main.py", data=b"print(2)\n")
    assert connection.llen(settings.ARMADA.validation_queue) == 0  # nothing before the commit
    for callback in callbacks:
        callback()
    assert connection.llen(settings.ARMADA.validation_queue) == 1


def test_a_second_delivery_does_nothing(version):
    from armada_web.bots.tasks import validate_version
    from armada_web.bots.validation import VALIDATION
    from armada_web.jobs.leases import claim

    assert claim(kind=VALIDATION, job_id=version.pk) is not None
    assert validate_version(version.pk) == "skipped"  # already validating: the claim fails
    version.refresh_from_db()
    assert version.status == "validating" and version.attempts == 1


def test_a_worker_without_its_sandbox_hands_the_task_back_unclaimed(version, settings):
    """A missing bot image (or engine) on this worker: the version is not claimed, keeps its
    attempts and waits in the queue for a worker that has one (never `error` for this host's fault)."""
    require_docker()
    require_redis()
    import redis

    from armada_web.bots.tasks import validate_version
    from armada_web.games import runner

    settings.ARMADA = settings.ARMADA.with_(bot_image="armada/no-such-image:missing")
    runner._Sandbox.ready = None
    queue = redis.Redis.from_url(settings.REDIS_URL)
    before = queue.llen(settings.ARMADA.validation_queue)
    try:
        assert validate_version(version.pk) == "handed back"
    finally:
        runner._Sandbox.ready = None
    version.refresh_from_db()
    assert version.status == "pending" and version.attempts == 0 and version.detail == ""
    assert queue.llen(settings.ARMADA.validation_queue) == before + 1  # sent again, for another worker


def test_platform_failures_retry_then_give_status_error(version, settings, monkeypatch):
    """A sandbox that fails after the worker's check passed (its image went between the check and
    the game) is the platform's fault: retried, then `error`, never `invalid`."""
    require_docker()
    require_redis()
    from armada_web.bots import tasks
    from armada_web.games import runner

    monkeypatch.setattr(tasks, "sandbox_ready", lambda: True)  # the check passed just before
    monkeypatch.setattr(runner._Sandbox, "ready", None)
    settings.ARMADA = settings.ARMADA.with_(bot_image="armada/no-such-image:missing")
    settings.ARMADA = settings.ARMADA.with_(validation_attempts=3)
    for attempt in (1, 2):
        assert tasks.validate_version(version.pk) == "pending"
        version.refresh_from_db()
        assert version.status == "pending" and version.attempts == attempt
        assert "retrying after a platform failure" in version.detail and "sandbox is unavailable" in version.detail
    assert tasks.validate_version(version.pk) == "error"
    version.refresh_from_db()
    assert version.status == "error" and version.attempts == 3
    assert version.detail.startswith("platform failure after 3 attempts")


@pytest.mark.parametrize("fault", ["unreadable", "replaced"])
def test_storage_that_cannot_give_the_archive_is_a_retry_never_invalid(version, fault):
    """Storage down (or the object truncated, replaced: not the version's sha256) while a version
    is validated: given back for another attempt, never `invalid` (no Docker: the code is placed
    before any bot starts)."""
    from django.core.files.storage import default_storage

    from armada_web.bots import validation
    from armada_web.jobs.leases import claim

    name = version.archive.name
    default_storage.delete(name)
    if fault == "replaced":
        with open(default_storage.path(name), "wb") as handle:
            handle.write(b"PK\x03\x04 not the stored archive")
    lease = claim(kind=validation.VALIDATION, job_id=version.pk)
    assert lease is not None and not lease.last_attempt
    assert validation.run(lease) == "pending"
    version.refresh_from_db()
    assert version.status == "pending" and version.attempts == 1
    assert "retrying after a platform failure" in version.detail and "could not be read from storage" in version.detail
    if fault == "replaced":
        assert "truncated or replaced" in version.detail


def test_reaper_requeues_stuck_versions_and_errors_after_the_last_attempt(version, settings):
    from armada_web.bots.models import BotVersion
    from armada_web.bots.tasks import reap
    from armada_web.bots.validation import VALIDATION
    from armada_web.jobs.leases import claim

    settings.ARMADA = settings.ARMADA.with_(validation_attempts=2)
    claim(kind=VALIDATION, job_id=version.pk)
    assert reap(stuck_after_s=3600) == {"requeued": 0, "given_up": 0, "resent": 0}  # not stuck yet
    BotVersion.objects.filter(pk=version.pk).update(started=timezone.now() - timedelta(hours=2))
    assert reap(stuck_after_s=3600)["requeued"] == 1
    version.refresh_from_db()
    assert version.status == "pending"
    claim(kind=VALIDATION, job_id=version.pk)
    BotVersion.objects.filter(pk=version.pk).update(started=timezone.now() - timedelta(hours=2))
    assert reap(stuck_after_s=3600)["given_up"] == 1
    version.refresh_from_db()
    assert version.status == "error" and "not your bot's fault" in version.detail


def test_reaper_resends_pending_versions_whose_message_was_lost(version):
    from armada_web.bots.models import BotVersion
    from armada_web.bots.tasks import reap

    BotVersion.objects.filter(pk=version.pk).update(queued=timezone.now() - timedelta(hours=1))
    assert reap(stuck_after_s=600)["resent"] == 1
    assert reap(stuck_after_s=600)["resent"] == 0  # re-sent once, then it waits again


def test_newest_valid_version_becomes_active_unless_pinned(version, api):
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import upload_version

    bot = version.bot
    second = upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk__in=[version.pk, second.pk]).update(status="valid")
    refresh_active(bot=bot)
    bot.refresh_from_db()
    assert bot.active_version_id == second.pk and not bot.pinned

    client = api(bot.owner)
    response = client.post(f"/api/bots/{bot.pk}/active/", {"version": version.pk}, format="json")
    assert response.status_code == 200 and response.json()["active_version"] == version.pk
    assert response.json()["pinned"] is True
    third = upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print('v3')\n")
    BotVersion.objects.filter(pk=third.pk).update(status="valid")
    refresh_active(bot=bot)
    bot.refresh_from_db()
    assert bot.active_version_id == version.pk  # pinned: a new valid version does not take over

    pending = upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print('v4')\n")
    response = client.post(f"/api/bots/{bot.pk}/active/", {"version": pending.pk}, format="json")
    assert response.status_code == 409 and "only a valid version" in response.json()["detail"]
    response = client.post(f"/api/bots/{bot.pk}/active/", {"version": third.pk}, format="json")
    assert response.json()["pinned"] is False  # the newest valid one: automatic again


def test_validation_is_fair_between_users(make_user):
    """Issue 20: a slow user's uploads never make another user wait behind all of them: a worker takes
    the version of a user with nothing validating, then of the one validated longest ago, then the oldest."""
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot, upload_version
    from armada_web.bots.validation import claim_next

    def uploads(username: str, count: int) -> list[int]:
        owner = make_user(username)
        bot = create_bot(user=owner, name=f"{username}-bot", game="galaxy")
        return [upload_version(bot=bot, user=owner, filename="main.py", data=f"print({n})\n".encode()).pk
                for n in range(count)]

    slow = uploads("slow", 3)  # one user uploads three, then another one
    quick = uploads("quick", 1)
    first = claim_next(preferred=quick[0])
    assert first is not None and first.job_id == slow[0]  # the oldest, nobody validating yet
    second = claim_next(preferred=slow[1])
    assert second is not None and second.job_id == quick[0]  # not slow's second: slow has one running
    third = claim_next(preferred=slow[2])
    assert third is not None and third.job_id == slow[1]  # both busy: slow's last one started longer ago
    BotVersion.objects.filter(pk__in=[slow[0], quick[0], slow[1]]).update(status="valid", finished=timezone.now())
    late = uploads("late", 1)
    nxt = claim_next(preferred=slow[2])
    assert nxt is not None and nxt.job_id == late[0]  # never validated goes before slow's third
    last = claim_next(preferred=late[0])
    assert last is not None and last.job_id == slow[2]
    assert claim_next(preferred=slow[2]) is None  # nothing is waiting: the message does nothing


def test_a_version_given_back_keeps_its_owners_place_in_the_fair_order(make_user):
    """A review: a give-back that cleared `started` (as a re-queued match's is) made its owner one who
    never validated anything, first in line: a version killing its worker went first at every retry."""
    from datetime import timedelta

    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot, upload_version
    from armada_web.bots.validation import VALIDATION, fair_order
    from armada_web.jobs.leases import claim

    def uploads(username: str, count: int) -> list[int]:
        owner = make_user(username)
        bot = create_bot(user=owner, name=f"{username}-bot", game="galaxy")
        return [upload_version(bot=bot, user=owner, filename="main.py", data=f"print({n})\n".encode()).pk
                for n in range(count)]

    other = uploads("other", 2)
    assert claim(kind=VALIDATION, job_id=other[0]) is not None
    now = timezone.now()
    BotVersion.objects.filter(pk=other[0]).update(status="valid", finished=now, started=now - timedelta(hours=1))
    crash = uploads("crash", 1)
    lease = claim(kind=VALIDATION, job_id=crash[0])
    assert lease is not None and lease.give_back("retrying after a platform failure: worker lost")
    assert BotVersion.objects.get(pk=crash[0]).started is not None
    assert fair_order()[0] == other[1]  # crash validated more lately than other: other goes first


def test_an_active_version_validated_again_that_fails_hands_back_to_the_newest_valid(version, monkeypatch):
    """An organiser's trial: staff re-ran the validation of a bot's active version, the platform
    failed it (`error`), and the version stayed active: the bot left the ladder and could enter no
    event, though its two earlier versions were valid. The newest valid one plays again (and the
    failed one takes over once valid again)."""
    from armada_web.bots import tasks, validation
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.bots.services import revalidate, upload_version
    from armada_web.games.runner import PlatformFailure

    bot = version.bot
    second = upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk__in=[version.pk, second.pk]).update(status="valid")
    refresh_active(bot=bot)
    assert Bot.objects.get(pk=bot.pk).active_version_id == second.pk

    def down(**_):
        raise PlatformFailure("the sandbox is unavailable: gone")

    monkeypatch.setattr(tasks, "sandbox_ready", lambda: True)
    monkeypatch.setattr(validation, "validation_game", down)
    from django.conf import settings

    monkeypatch.setattr(settings, "ARMADA", settings.ARMADA.with_(validation_attempts=1))
    assert revalidate(version=second)
    assert tasks.validate_version(second.pk) == "error"
    assert Bot.objects.get(pk=bot.pk).active_version_id == version.pk  # v1 plays again


def test_a_pinned_active_version_that_fails_unpins_and_a_retired_bot_keeps_its_record(version):
    """A review: a bot pinned to the version that then failed stayed benched; a retired bot's record
    moved to another version."""
    from armada_web.bots import validation
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.bots.services import upload_version

    bot = version.bot
    second = upload_version(bot=bot, user=bot.owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=second.pk).update(status="valid")
    Bot.objects.filter(pk=bot.pk).update(active_version=version, pinned=True)  # pinned to v1, which fails
    BotVersion.objects.filter(pk=version.pk).update(status="error")
    validation.fall_back(BotVersion.objects.get(pk=version.pk))
    bot.refresh_from_db()
    assert (bot.active_version_id, bot.pinned) == (second.pk, False)

    from django.utils import timezone

    Bot.objects.filter(pk=bot.pk).update(retired=timezone.now())
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    BotVersion.objects.filter(pk=second.pk).update(status="error")
    validation.fall_back(BotVersion.objects.get(pk=second.pk))
    assert Bot.objects.get(pk=bot.pk).active_version_id == second.pk  # retired: as it was


def test_the_reapers_give_up_and_its_consequence_commit_together(version, settings, monkeypatch):
    """A review (traced): the reaper committed a version's `error` before handing its bot back to a
    valid version (`on_give_up`), so a worker dying between the two left the bot on the version in
    error for good. They are one transaction: a failure between leaves the job to the next reap."""
    from armada_web.bots import validation
    from armada_web.bots.models import BotVersion
    from armada_web.bots.tasks import reap
    from armada_web.jobs.leases import claim

    settings.ARMADA = settings.ARMADA.with_(validation_attempts=1)
    claim(kind=validation.VALIDATION, job_id=version.pk)
    BotVersion.objects.filter(pk=version.pk).update(started=timezone.now() - timedelta(hours=2))
    real = validation.fall_back

    def dies(found):
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(validation, "fall_back", dies)
    with pytest.raises(RuntimeError):
        reap(stuck_after_s=3600)
    assert BotVersion.objects.get(pk=version.pk).status == "validating"  # nothing half done
    monkeypatch.setattr(validation, "fall_back", real)
    assert reap(stuck_after_s=3600)["given_up"] == 1
    assert BotVersion.objects.get(pk=version.pk).status == "error"
