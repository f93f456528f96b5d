"""The lease helper's ways of healing (issue 20), in-process: heartbeats and the reaper's deadline,
taking over a job whose holder died on this host, sending again only the messages the broker lost,
retrying an unreachable database. (End to end, with real faults: tests/live/test_faults_live.py.)"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from datetime import timedelta

import pytest
from django.db.utils import OperationalError
from django.utils import timezone

from tests.support.services import require_redis

pytestmark = pytest.mark.django_db


@pytest.fixture
def matches(make_user, valid_version, armada):
    """Two queued ranked matches of a queue of this test's own (nobody consumes it)."""
    from armada_web.matches.services import create_match

    armada(matches_queue=f"test-leases-{uuid.uuid4().hex[:8]}", match_attempts=3, heartbeat_timeout_s=60,
           lost_message_s=15)
    alice, bob = make_user("alice"), make_user("bob")
    first, second = valid_version(alice, "alpha"), valid_version(bob, "bravo")
    return [create_match(game="galaxy", first=first, second=second) for _ in range(2)]


def test_a_running_match_whose_heartbeat_stopped_is_given_back_and_a_beating_one_is_left(matches, caplog, armada):
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, claim_fields
    from armada_web.matches.models import Match
    from armada_web.matches.tasks import reap

    armada(host_name="worker-2")
    silent, beating = (claim(kind=MATCH, job_id=m.pk, **claim_fields("galaxy", "matches@lost")) for m in matches)
    assert silent is not None and beating is not None
    assert reap() == {"requeued": 0, "given_up": 0, "resent": 0}  # both just claimed: their first heartbeat
    Match.objects.filter(pk=silent.job_id).update(heartbeat=timezone.now() - timedelta(seconds=61))
    Match.objects.filter(pk=beating.job_id).update(started=timezone.now() - timedelta(minutes=20))  # long, alive
    assert beating.beat()
    with caplog.at_level("WARNING", logger="armada_web.jobs.leases"):
        assert reap()["requeued"] == 1
    # A compose trial: the organiser saw a match played again with no line saying why; a second host's
    # trial: the line named the machine ("vm"), not the worker host it had lost
    assert [r.getMessage() for r in caplog.records] == [
        f"match {silent.job_id}: re-queued: the worker running it was lost (worker-2 {silent.holder}, attempt 1 of 3)"]
    requeued = Match.objects.get(pk=silent.job_id)
    assert requeued.status == "queued" and requeued.attempts == 1
    # An organiser's trial: the re-queued match still named the lost host and its start, in the API too.
    assert (requeued.worker, requeued.host, requeued.engine_version, requeued.started, requeued.heartbeat) == (
        "", "", "", None, None)
    running = Match.objects.get(pk=beating.job_id)
    assert running.status == "running" and running.worker == "matches@lost" and running.engine_version
    assert set(MATCH.given_back) == {*claim_fields("galaxy"), "started", "heartbeat"}  # every field a claim sets
    assert not silent.beat() and not silent.record(turns=1)  # the lost attempt can no longer write


def test_a_match_silent_on_its_last_attempt_fails(matches, armada):
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH
    from armada_web.matches.models import Match
    from armada_web.matches.tasks import reap

    armada(match_attempts=1)
    lease = claim(kind=MATCH, job_id=matches[0].pk)
    assert lease is not None
    Match.objects.filter(pk=lease.job_id).update(heartbeat=timezone.now() - timedelta(seconds=90))
    assert reap()["given_up"] == 1
    match = Match.objects.get(pk=lease.job_id)
    assert match.status == "failed" and "1 attempts" in match.reason


@pytest.mark.django_db(transaction=True)
def test_beating_keeps_the_heartbeat_fresh_from_a_thread_and_stops_for_a_lost_attempt(matches):
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH
    from armada_web.matches.models import Match

    lease = claim(kind=MATCH, job_id=matches[0].pk)
    assert lease is not None
    old = timezone.now() - timedelta(minutes=5)
    Match.objects.filter(pk=lease.job_id).update(heartbeat=old)
    with lease.beating(every_s=0.1):
        time.sleep(0.6)
        assert Match.objects.get(pk=lease.job_id).heartbeat > old + timedelta(minutes=4)
        assert lease.give_back("taken back")  # superseded: the thread finds nothing to beat
        time.sleep(0.3)
    assert Match.objects.get(pk=lease.job_id).status == "queued"


def test_beating_inside_a_transaction_runs_no_thread(matches):
    """A test's transaction hides the row from other connections: no thread that would wait on it."""
    import threading

    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH

    lease = claim(kind=MATCH, job_id=matches[0].pk)
    assert lease is not None
    before = threading.active_count()
    with lease.beating(every_s=0.01):
        assert threading.active_count() == before


def _dead_process() -> tuple[int, int]:
    """The pid and start time of a process that has ended (and been reaped)."""
    from armada_web.jobs.leases import process_start

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    start = process_start(child.pid)
    child.kill()
    child.wait()
    assert start is not None and process_start(child.pid) is None
    return child.pid, start


def test_a_delivery_takes_over_a_match_whose_holder_died_on_this_host(matches):
    """A worker child killed mid-match: Celery delivers its message again at once, and the claim
    gives the match back and takes it, without waiting for the heartbeat's deadline."""
    from armada_web.jobs.leases import claim, holder_id, host_id
    from armada_web.matches.execution import MATCH
    from armada_web.matches.models import Match

    lease = claim(kind=MATCH, job_id=matches[0].pk)
    assert lease is not None and Match.objects.get(pk=lease.job_id).holder == holder_id()
    assert claim(kind=MATCH, job_id=lease.job_id) is None  # its holder (this process) lives: a 2nd delivery: nothing
    Match.objects.filter(pk=lease.job_id).update(holder=f"another-host:{1}:{1}")
    assert claim(kind=MATCH, job_id=lease.job_id) is None  # another host's process: the heartbeat will tell
    pid, start = _dead_process()
    Match.objects.filter(pk=lease.job_id).update(holder=f"{host_id()}:{pid}:{start}")
    again = claim(kind=MATCH, job_id=lease.job_id)
    assert again is not None and again.attempt == 2
    assert not lease.record(turns=1)  # the dead attempt counts for nothing


def test_a_reused_pid_is_not_the_holder(matches):
    import os
    import socket

    from armada_web.jobs.leases import claim, holder_gone, host_id, process_start
    from armada_web.matches.execution import MATCH

    mine = process_start()
    assert mine is not None
    assert not holder_gone(f"{host_id()}:{os.getpid()}:{mine}")
    assert holder_gone(f"{host_id()}:{os.getpid()}:{mine + 1}")  # same pid, another start: gone
    assert not holder_gone("") and not holder_gone("garbage")
    # The same host name in another pid namespace (a worker container with the host's network): its
    # pids are not ours to look up, so it is never judged gone from here; nor is an older holder.
    pid, start = _dead_process()
    assert holder_gone(f"{host_id()}:{pid}:{start}")
    assert not holder_gone(f"{socket.gethostname()}/1:{pid}:{start}") and host_id() != f"{socket.gethostname()}/1"
    assert not holder_gone(f"{socket.gethostname()}:{pid}:{start}")
    assert claim(kind=MATCH, job_id=matches[0].pk) is not None


def test_only_a_waiting_match_whose_message_is_gone_is_sent_again(matches, settings):
    """Redis emptied: the reaper sees which messages the broker lost and sends those again (after
    ARMADA_LOST_MESSAGE_S), never a second copy of one that is still there."""
    require_redis()
    import redis

    from armada_web.matches.models import Match
    from armada_web.matches.tasks import reap, send

    queue = settings.ARMADA.matches_queue
    broker = redis.Redis.from_url(settings.REDIS_URL)
    try:
        kept, lost = matches
        send(kept.pk, kept.kind)  # its message is in the queue (the other's never was: no commit here)
        assert reap()["resent"] == 0  # both were queued just now
        Match.objects.filter(pk__in=[kept.pk, lost.pk]).update(queued=timezone.now() - timedelta(seconds=20))
        assert reap() == {"requeued": 0, "given_up": 0, "resent": 1}
        assert broker.llen(queue) == 2  # one each now
        Match.objects.filter(pk__in=[kept.pk, lost.pk]).update(queued=timezone.now() - timedelta(seconds=20))
        assert reap()["resent"] == 0  # both messages are there
        broker.delete(queue)  # Redis emptied
        assert reap()["resent"] == 2
        assert Match.objects.get(pk=lost.pk).queued > timezone.now() - timedelta(seconds=5)
    finally:
        broker.delete(queue)


def test_a_message_a_worker_took_long_ago_without_claiming_the_match_is_sent_again(matches, settings):
    """A reliability trial: a worker killed while it held a match's message (sent with a countdown,
    so taken at once) left it in the broker's hash of taken messages, where it stays for the
    visibility timeout (an hour): the match waited 35 minutes. One taken just now still counts."""
    require_redis()
    import json

    import redis

    from armada_web.jobs import queues
    from armada_web.jobs.leases import TAKEN_GRACE_S
    from armada_web.matches.models import Match
    from armada_web.matches.tasks import reap, send

    queue = settings.ARMADA.matches_queue
    broker = redis.Redis.from_url(settings.REDIS_URL)
    taken, lost = matches
    tag = f"test-taken-{taken.pk}"
    try:
        send(taken.pk, taken.kind)
        message = json.loads(broker.rpop(queue))  # as kombu's Redis transport hands it to a worker
        broker.hset(queues.UNACKED, tag, json.dumps([message, "", queue]))
        broker.zadd(queues.UNACKED_INDEX, {tag: time.time()})
        Match.objects.filter(pk__in=[taken.pk, lost.pk]).update(queued=timezone.now() - timedelta(seconds=20))
        assert reap()["resent"] == 1 and broker.llen(queue) == 1  # the lost one; the taken one is held
        held_for = settings.ARMADA.lost_message_s + TAKEN_GRACE_S + 5
        broker.zadd(queues.UNACKED_INDEX, {tag: time.time() - held_for})  # its worker never claimed it
        Match.objects.filter(pk__in=[taken.pk, lost.pk]).update(queued=timezone.now() - timedelta(seconds=20))
        assert reap()["resent"] == 1 and broker.llen(queue) == 2  # the taken one, sent again
    finally:
        broker.delete(queue)
        broker.hdel(queues.UNACKED, tag)
        broker.zrem(queues.UNACKED_INDEX, tag)


def test_retrying_waits_out_a_database_that_is_briefly_unreachable(armada):
    from armada_web.jobs.leases import retrying

    calls = []

    def flaky() -> str:
        calls.append(time.monotonic())
        if len(calls) < 3:
            raise OperationalError("server closed the connection unexpectedly")
        return "recorded"

    # Inside the test's transaction a retry could not help: it raises at once.
    with pytest.raises(OperationalError):
        retrying(flaky, within_s=10)
    assert len(calls) == 1


@pytest.mark.django_db(transaction=True)
def test_retrying_outside_a_transaction_tries_again_with_back_off():
    from armada_web.jobs.leases import retrying

    calls: list[float] = []

    def flaky() -> str:
        calls.append(time.monotonic())
        if len(calls) < 3:
            raise OperationalError("could not connect to server")
        return "recorded"

    assert retrying(flaky, within_s=10) == "recorded"
    assert len(calls) == 3 and calls[2] - calls[1] > calls[1] - calls[0] > 0.4  # 0.5 s, then 1 s

    def down() -> str:
        raise OperationalError("could not connect to server")

    started = time.monotonic()
    with pytest.raises(OperationalError):
        retrying(down, within_s=1.0)  # gives up once the next pause would pass the deadline
    assert time.monotonic() - started < 2.0


def test_a_revalidation_does_not_let_a_stalled_workers_attempt_hold_the_new_one(make_user, valid_version,
                                                                                 monkeypatch):
    """Staff re-run a version's validation (attempts back to 0) while a stalled worker's attempt 1
    was given back by the reaper: a new worker's claim is attempt 1 too, and only it holds the row;
    the stalled one's late result is refused (before: both held it, the stale one wrote over)."""
    from armada_web.bots import services
    from armada_web.bots.models import BotVersion
    from armada_web.bots.validation import VALIDATION
    from armada_web.jobs import leases

    version = valid_version(make_user("alice"), "alpha")
    BotVersion.objects.filter(pk=version.pk).update(status="pending", attempts=0)
    stalled = leases.claim(kind=VALIDATION, job_id=version.pk)
    assert stalled is not None and stalled.attempt == 1
    assert leases.Lease(VALIDATION, version.pk, 1).give_back("its worker stopped beating")  # the reaper
    assert services.revalidate(version=BotVersion.objects.get(pk=version.pk))
    monkeypatch.setattr(leases, "holder_id", lambda: "other-host/1:42:42")  # another worker
    fresh = leases.claim(kind=VALIDATION, job_id=version.pk)
    assert fresh is not None and fresh.attempt == stalled.attempt == 1
    assert fresh.held() and not stalled.held()
    # the reaper acting for the stalled holder (it read the row before the new claim) touches nothing
    assert not leases.Lease(VALIDATION, version.pk, 1, stalled.holder).give_back("its worker stopped beating")
    assert fresh.held()
    assert not stalled.record(status="valid", detail="late") and not stalled.beat()
    assert fresh.record(status="invalid", detail="the new run's")
    assert fresh.recorded("invalid") and not stalled.recorded("invalid")
    assert BotVersion.objects.get(pk=version.pk).detail == "the new run's"
