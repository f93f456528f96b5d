"""Many worker hosts, on one machine: a second Docker engine (infra/dockerd-second.sh) is the second
host's, and a second match worker whose DOCKER_HOST is that engine joins the running deployment
(the same database, Redis queues and object storage: moto's S3 server). Both take matches from
the same queues and matches run on both engines; then the second host dies mid-match (its worker
SIGKILLed, its engine killed): the match is played again by the first host and counts once,
nothing else is lost, and no bot container of the first host is left. And a worker whose engine
is gone takes no match (none voided, none claimed) until its engine answers again.

The lost worker's match is given back by the reaper (`matches.tasks.reap`, what beat's
reap-matches runs every minute) with a stuck time just past that match's start: the lease
heartbeats of another branch (h-heal20) are not on main yet.
"""

from __future__ import annotations

import socket
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from armada.botspec import starter_file
from tests.support.docker_engine import SecondEngine, require_second_engine

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]

#: A Galaxy bot that thinks a quarter of a second per answer: a 30-turn match lasts about 15 s.
SLOW = starter_file("random", "galaxy").read_text().replace(
    "if __name__ == \"__main__\":",
    "_answer = Bot.answer\n\n\ndef _slow(self, request):\n    import time\n    time.sleep(0.25)\n"
    "    return _answer(self, request)\n\n\nBot.answer = _slow\n\nif __name__ == \"__main__\":")


def use_bucket(settings: Any, monkeypatch: Any, bucket: Any) -> None:
    from tests.storage.test_object_storage import use_bucket as point

    point(settings, monkeypatch, bucket)


def wait(what: str, seconds: float, probe: Any, logs: Any = lambda: "") -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {seconds:g} s; logs:\n{logs()[-6000:]}")
        time.sleep(0.3)


def second_host_worker(site: Any, engine: SecondEngine, folder: Path, name: str, **env: str) -> str:
    """Start the second host's match worker (its engine, its own slots and temporary files); its node name."""
    (folder / "slots").mkdir(parents=True, exist_ok=True)
    (folder / "tmp").mkdir(parents=True, exist_ok=True)
    node = f"{name}-{uuid.uuid4().hex[:6]}"
    queues = f"{site.env['ARMADA_CHALLENGES_QUEUE']},{site.env['ARMADA_MATCHES_QUEUE']}"
    site.start_worker_process(name, queues, f"{node}@%h", env={
        "DOCKER_HOST": engine.docker_host, "ARMADA_SANDBOX_SLOT_DIR": str(folder / "slots"),
        "TMPDIR": str(folder / "tmp"), "ARMADA_SANDBOX_WARM_PAIRS": "1", **env})
    return node


def bots_running_in(engine: SecondEngine) -> list[int]:
    """Bot processes (main.py) running in the containers of `engine` (found by its cgroup)."""
    pids: set[int] = set()
    for procs in Path("/sys/fs/cgroup").glob(f"*/armada-{engine.name}/*/cgroup.procs"):
        pids |= {int(line) for line in procs.read_text().split()}
    pids |= {int(line) for procs in Path("/sys/fs/cgroup").glob(f"armada-{engine.name}/*/cgroup.procs")
             for line in procs.read_text().split()}
    running = []
    for pid in sorted(pids):
        try:
            if b"main.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                running.append(pid)
        except OSError:
            continue
    return running


def test_two_hosts_share_the_queues_and_a_lost_host_loses_nothing(live_site_factory, s3_bucket, settings,
                                                                   monkeypatch, make_user, valid_version, tmp_path):
    require_second_engine()
    from armada_sandbox._engine import docker_client
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match
    from armada_web.matches.tasks import reap

    use_bucket(settings, monkeypatch, s3_bucket)
    site = live_site_factory(env=s3_bucket.env())  # the deployment, its first host's workers on this engine
    first = valid_version(make_user("alice"), "alpha", code=SLOW)
    second = valid_version(make_user("bob"), "bravo", code=SLOW)
    engine = SecondEngine(f"armada-hosts-{uuid.uuid4().hex[:6]}")
    main = docker_client()
    try:
        engine.start()
        # the second host joins the running deployment: one worker process, pointed at its engine
        node = second_host_worker(site, engine, tmp_path / "host2", "host2")
        site.wait_until("the second host's worker", 60, lambda: "ready" in site.log("host2"))

        def logs() -> str:
            return site.log("worker-matches") + "\n--- host 2 ---\n" + site.log("host2")

        made = [create_match(game="galaxy", first=first, second=second, kind="ranked", seed=n).pk for n in range(4)]
        done = wait("4 matches played", 240, lambda: Match.objects.filter(pk__in=made, status="finished").count() == 4
                    and Match.objects.filter(pk__in=made), logs)
        workers = {m.worker for m in done}
        assert len(workers) == 2 and any(w.startswith(f"{node}@") for w in workers), workers  # both hosts played
        # the second host's bots live in its own engine's containers, never in the first host's
        pid = str(site.procs["host2"].pid)
        assert engine.client().containers.list(filters={"label": f"armada.worker={pid}"})
        assert not main.containers.list(all=True, filters={"label": f"armada.worker={pid}"}, ignore_removed=True)

        # the second host dies in the middle of a match
        more = [create_match(game="galaxy", first=first, second=second, kind="ranked", seed=10 + n).pk
                for n in range(2)]
        def playing_there() -> Any:
            running = Match.objects.filter(pk__in=more, status="running", worker__startswith=f"{node}@").first()
            return running if running is not None and len(bots_running_in(engine)) == 2 else None

        lost = wait("a match running on the second host's engine", 120, playing_there, logs)
        site.kill("host2")
        engine.kill()
        # the reaper gives it back (beat's reap-matches; no heartbeats on main yet) with a stuck time
        # ending within a second after its start, once the first host plays no match started by then
        wait("the first host past the lost match's start", 120, lambda: not Match.objects.filter(
            status="running", started__lte=lost.started + timedelta(seconds=1)).exclude(pk=lost.pk).exists(), logs)
        assert reap(stuck_after_s=int((timezone.now() - lost.started).total_seconds()))["requeued"] == 1
        everything = made + more
        done = wait("every match finished", 240, lambda: Match.objects.filter(pk__in=everything).exclude(
            status="finished").count() == 0 and Match.objects.filter(pk__in=everything), logs)
        again = Match.objects.get(pk=lost.pk)
        assert again.attempts == 2 and not again.worker.startswith(f"{node}@")  # played again by the first host
        assert again.replay.name == f"matches/{lost.pk}/replay-a2.json.gz"
        assert {m.status for m in done} == {"finished"} and all(m.attempts == 1 for m in done if m.pk != lost.pk)
        assert RatingChange.objects.filter(match_id=lost.pk).count() == 2  # it counts once
        assert RatingChange.objects.count() == 2 * len(everything)
        assert sorted(Rating.objects.values_list("games", flat=True)) == [len(everything)] * 2
        # no bot container of the first host is left behind by any of these matches
        leftovers = [c for c in main.containers.list(all=True, filters={"label": "armada.match"}, ignore_removed=True)
                     if c.labels.get("armada.match") in {str(pk) for pk in everything}]
        assert leftovers == []
    finally:
        engine.purge()  # named for this run: its data root goes too


def test_a_worker_whose_engine_is_gone_takes_no_match_until_it_answers(live_site_factory, settings, make_user,
                                                                       valid_version, tmp_path):
    """No match voided or claimed while its engine is gone; it consumes its queues again after."""
    require_second_engine()
    from celery import current_app

    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    site = live_site_factory(match_worker=False)  # this host's only match worker is the one below
    first = valid_version(make_user("carol"), "charlie")
    second = valid_version(make_user("dave"), "delta")
    engine = SecondEngine(f"armada-gone-{uuid.uuid4().hex[:6]}")
    try:
        engine.start()
        node = second_host_worker(site, engine, tmp_path / "host", "gone", ARMADA_WORKER_SANDBOX_CHECK_S="1")
        site.wait_until("the worker", 60, lambda: "ready" in site.log("gone"))
        queues = {site.env["ARMADA_CHALLENGES_QUEUE"], site.env["ARMADA_MATCHES_QUEUE"]}

        def consumed() -> set[str]:
            replies = current_app.control.inspect(timeout=2, destination=[f"{node}@{_hostname()}"]).active_queues()
            return {q["name"] for q in (replies or {}).get(f"{node}@{_hostname()}", [])}

        assert wait("the worker consuming its queues", 30, lambda: consumed() >= queues)
        engine.kill()
        wait("the worker to stop taking matches", 60, lambda: "stops taking tasks from" in site.log("gone")
             and not consumed() & queues, lambda: site.log("gone"))
        match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=1)
        time.sleep(8)  # a worker that took it would have claimed (and voided) it by now
        match.refresh_from_db()
        assert (match.status, match.attempts, match.reason) == ("queued", 0, "")
        engine.stop()
        engine.start()  # the engine answers again (a restarted dockerd)
        done = wait("the match played once the engine answers", 180, lambda: Match.objects.filter(
            pk=match.pk, status__in=("finished", "void", "failed")).first(), lambda: site.log("gone"))
        assert done.status == "finished" and done.attempts == 1, done.reason
        assert done.worker.startswith(f"{node}@")
        assert "takes tasks from" in site.log("gone")
    finally:
        engine.purge()  # named for this run: its data root goes too


def _hostname() -> str:
    return socket.gethostname()
