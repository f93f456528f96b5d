"""Matches end to end: real web server, real Celery worker processes (validation; challenges and
matches), Redis and Docker. Uploads validated like any upload, matchmaking makes a ranked game,
the worker plays it, ratings change once; a worker killed with SIGKILL mid-match: the reaper
re-queues it, a new worker plays it, it counts once; a challenge through the API; Redis emptied
loses no match (the reaper re-sends it from the database); two workers given the same match
run it once."""

from __future__ import annotations

import time
from typing import Any

import pytest

from armada.botspec import starter_file
from tests.live.test_validation_live import call, token_for, upload, wait_for
from tests.support.localsite import ROOT

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]

SLOW = starter_file("random", "galaxy").read_text().replace(
    "if __name__ == \"__main__\":",
    "_answer = Bot.answer\n\n\ndef _slow(self, request):\n    import time\n    time.sleep(0.4)\n"
    "    return _answer(self, request)\n\n\nBot.answer = _slow\n\nif __name__ == \"__main__\":")


def wait_match(match_id: int, statuses: tuple[str, ...], seconds: float = 180) -> Any:
    from armada_web.matches.models import Match

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        match = Match.objects.get(pk=match_id)
        if match.status in statuses:
            return match
        time.sleep(0.3)
    raise AssertionError(f"match {match_id} still {Match.objects.get(pk=match_id).status}")


def two_valid_bots(live_site: Any, code: str | None = None) -> list[int]:
    versions = []
    for username, name in (("alice", "alpha"), ("bob", "bravo")):
        token = token_for(live_site, username)
        source = code or starter_file("greedy", "galaxy").read_text()
        version = upload(live_site, token, "galaxy", name, "main.py", source.encode())
        versions.append((token, version["id"]))
    for token, version_id in versions:
        assert wait_for(live_site, token, version_id, ("valid", "invalid", "error"))["status"] == "valid"
    return [v for _t, v in versions]


def slow_bots(make_user: Any, valid_version: Any, names: tuple[str, ...] = ("alice", "bob"),
              code: str = SLOW) -> list[int]:
    """Valid Galaxy bots of new users `names` that answer slowly (`code`), made valid without running
    their validation: a bot that answers in 0.4 s takes 25 s to validate, and these tests are about
    the match (uploads and validation through a live site: tests/live/test_validation_live.py)."""
    return [valid_version(make_user(name), f"{name}-slow", code=code).pk for name in names]


def test_a_ranked_match_runs_on_the_worker_and_counts_once(live_site):
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.ladder.models import Rating, RatingChange

    versions = two_valid_bots(live_site)
    made = fill_queue(workers=1)
    assert len(made) == 2
    for match_id in made:
        match = wait_match(match_id, ("finished", "void", "failed"))
        assert match.status == "finished", (match.reason, live_site.log("worker-matches"))
    assert RatingChange.objects.count() == 4
    assert sorted(Rating.objects.values_list("games", flat=True)) == [2, 2]
    # the worker keeps a warm slot pair (issue 12): its bots start in containers made ahead
    log = live_site.log("worker-matches")  # (a slot still being remade after the first would start cold)
    assert any(f"match {m} played; sandbox starts: seat 1 warm, seat 2 warm" in log for m in made), log[-3000:]
    status, data = call(live_site, "GET", f"/api/matches/{made[0]}/")
    assert status == 200 and data["status"] == "finished"
    assert {p["bot"]["name"] for p in data["players"]} == {"alpha", "bravo"}
    status, ladder = call(live_site, "GET", "/api/ladder/galaxy/")
    assert status == 200 and ladder["count"] == 2
    assert {row["games"] for row in ladder["results"]} == {2}
    assert versions


def test_a_worker_killed_mid_match_the_match_runs_again_and_counts_once(live_site, armada, make_user, valid_version):
    """Issue 20: the heartbeat, not a 35-minute deadline, tells that the worker died: the match is
    given back once its heartbeat is older than ARMADA_HEARTBEAT_TIMEOUT_S (here 5 s; beats every 1 s)."""
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.services import create_match
    from armada_web.matches.tasks import reap

    armada(heartbeat_timeout_s=5)
    ids = slow_bots(make_user, valid_version)
    first, second = (BotVersion.objects.select_related("bot").get(pk=i) for i in ids)
    match = create_match(game="galaxy", first=first, second=second)
    running = wait_match(match.pk, ("running",), 60)
    time.sleep(3.0)  # well inside its 30 slow turns
    beats = wait_match(match.pk, ("running",), 1).heartbeat
    assert beats is not None and beats > running.heartbeat  # the worker beats while the match plays
    live_site.kill_worker("matches")  # the whole worker (solo pool): nobody delivers the message again
    killed = time.monotonic()
    assert wait_match(match.pk, ("running",), 1).attempts == 1
    assert reap() == {"requeued": 0, "given_up": 0, "resent": 0}  # its last heartbeat is fresh
    while reap()["requeued"] == 0:
        assert time.monotonic() - killed < 8, "not given back within the heartbeat's deadline"
        time.sleep(0.2)
    assert time.monotonic() - killed > 2  # not before its heartbeat went silent
    assert wait_match(match.pk, ("queued",), 1).attempts == 1
    live_site.start_match_worker()
    done = wait_match(match.pk, ("finished", "void", "failed"), 240)
    assert done.status == "finished" and done.attempts == 2, done.reason
    assert RatingChange.objects.filter(match=done).count() == 2
    assert running.worker


def test_a_challenge_through_the_api_is_played(live_site):
    versions = two_valid_bots(live_site)
    from armada_web.bots.models import BotVersion

    mine, theirs = (BotVersion.objects.get(pk=v).bot_id for v in versions)
    status, token_data = call(live_site, "POST", "/api/tokens/", body={
        "username": "alice", "password": "a-long-test-password-42", "name": "again"})
    assert status == 201
    status, match = call(live_site, "POST", "/api/challenges/", token_data["token"], {"bot": mine, "opponent": theirs})
    assert status == 201 and match["kind"] == "challenge", match
    done = wait_match(match["id"], ("finished", "void", "failed"))
    assert done.status == "finished", done.reason
    from armada_web.ladder.models import RatingChange

    assert RatingChange.objects.count() == 0  # unrated


def wait_log(live_site: Any, name: str, text: str, count: int = 1, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if live_site.log(name).count(text) >= count:
            return
        time.sleep(0.3)
    raise AssertionError(f"{text!r} not {count} times in the {name} logs: {live_site.log(name)[-3000:]}")


def test_redis_emptied_loses_no_match_the_reaper_requeues_it(live_site, settings, armada):
    """Issue 20: a queued match whose message is gone is sent again once it has waited
    ARMADA_LOST_MESSAGE_S (here 3 s), not after the 35-minute deadline; one whose message is still
    there is never sent twice."""
    import redis

    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.services import create_match
    from armada_web.matches.tasks import reap

    armada(lost_message_s=3)
    ids = two_valid_bots(live_site)
    first, second = (BotVersion.objects.select_related("bot").get(pk=i) for i in ids)
    live_site.kill_worker("matches")  # idle: nobody takes the message
    queue = live_site.env["ARMADA_MATCHES_QUEUE"]
    broker = redis.Redis.from_url(settings.REDIS_URL)
    match = create_match(game="galaxy", first=first, second=second)
    assert broker.llen(queue) == 1  # sent on commit
    time.sleep(3.2)
    assert reap()["resent"] == 0 and broker.llen(queue) == 1  # it waited 3 s, but its message is there
    broker.delete(queue)  # Redis restarted empty: the message is gone, the row is not
    assert broker.llen(queue) == 0
    assert wait_match(match.pk, ("queued",), 1).attempts == 0
    assert reap() == {"requeued": 0, "given_up": 0, "resent": 1}
    assert broker.llen(queue) == 1  # the queue rebuilt from the database
    live_site.start_match_worker()
    done = wait_match(match.pk, ("finished", "void", "failed"), 180)
    assert done.status == "finished" and done.attempts == 1, (done.reason, live_site.log("worker-matches"))
    assert RatingChange.objects.filter(match=done).count() == 2


def test_two_workers_never_run_one_match_twice(live_site, make_user, valid_version):
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.matches.services import create_match
    from armada_web.matches.tasks import send

    ids = slow_bots(make_user, valid_version)
    first, second = (BotVersion.objects.select_related("bot").get(pk=i) for i in ids)
    live_site.start_match_worker()  # a second worker on the same queues
    wait_log(live_site, "worker-matches", " ready.", count=2)
    match = create_match(game="galaxy", first=first, second=second)  # the first delivery, on commit
    send(match.pk, match.kind)  # a second delivery of run_match for the same match
    done = wait_match(match.pk, ("finished", "void", "failed"), 240)
    assert done.status == "finished" and done.attempts == 1, (done.reason, live_site.log("worker-matches"))
    wait_log(live_site, "worker-matches", "'skipped'")  # the other delivery found it taken
    received = [p.read_text().count("run_match[") for p in sorted(live_site.data_dir.glob("worker-matches-*.log"))]
    assert sum(1 for n in received if n) == 2, received  # each worker got one delivery
    assert RatingChange.objects.filter(match=done).count() == 2  # one set of rating changes
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]


def test_make_worker_adds_a_match_worker_with_the_instances_settings(live_site_factory, make_user, valid_version):
    """`make worker` (infra/worker.sh) beside a running instance: given the same ARMADA_DATA_DIR and
    database, it reads the instance's keys from the data folder, consumes the instance's match
    queues and plays its matches (the README's command before it set SECRET_KEY alone, from a
    folder that is not the data folder)."""
    from armada_web.bots.models import BotVersion
    from armada_web.ladder.models import RatingChange
    from armada_web.matches.services import create_match

    site = live_site_factory(match_worker=False)
    (site.data_dir / "bot-seed.key").write_text("5e" * 32)
    ids = slow_bots(make_user, valid_version, code=starter_file("greedy", "galaxy").read_text())
    first, second = (BotVersion.objects.select_related("bot").get(pk=i) for i in ids)
    worker = site.spawn("extra", ["bash", str(ROOT / "infra" / "worker.sh")], env={"PORT": str(site.port)})
    wait_log(site, "extra", " ready.")
    match = create_match(game="galaxy", first=first, second=second)
    done = wait_match(match.pk, ("finished", "void", "failed"), 180)
    assert done.status == "finished", (done.reason, site.log("extra")[-3000:])
    assert f"matches-{worker.pid}.{site.port}@" in site.log("extra")  # the node name: its own, the host's
    assert "run_match[" in site.log("extra")
    assert RatingChange.objects.filter(match=done).count() == 2
