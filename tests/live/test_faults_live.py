"""Faults healed by the site itself (issue 20), on services of the test's own (tests/support/faults.py): a
private Redis stopped and started empty, a worker child killed with SIGKILL, a second Docker engine
restarted while a match plays, the PostgreSQL database closed for a few seconds. The site runs as
`make up` runs it (web server, validation and match workers, the periodic worker and Celery beat:
matchmaking, the reapers, the sweeper) with short deadlines; nothing but the fault is done by hand.
Each test checks that play goes on by itself, the match in flight is played again (or voided),
nothing counts twice and no container or work folder is left behind."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from armada.botspec import starter_file
from tests.live.test_matches_live import SLOW as SLOWER
from tests.live.test_matches_live import slow_bots
from tests.live.test_validation_live import call, token_for, upload
from tests.live.test_validation_live import wait_for as wait_version
from tests.support.faults import RedisServer, database_closed, restart_engine, wait_for
from tests.support.fixtures import PRODUCTION, LiveSite, database_env
from tests.support.localsite import LocalSite

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]

#: The deadlines of these sites (make up's defaults are 10, 60, 15 and 10 s).
HEARTBEAT_S, HEARTBEAT_TIMEOUT_S, LOST_MESSAGE_S, REAP_S = 1, 6, 3, 2
DONE = ("finished", "void", "failed")
#: A Galaxy bot that takes 0.15 s per answer: a match lasts about ten seconds, time to hit it.
SLOW = SLOWER.replace("time.sleep(0.4)", "time.sleep(0.15)")
assert SLOW != SLOWER


def get(url: str, timeout: float = 10) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


class FaultSite(LiveSite):
    """A live site on a Redis of its own (and, if given, a Docker engine of its own), with beat."""

    def __init__(self, env: dict[str, str], folder: Path, redis: RedisServer) -> None:
        super().__init__(env, folder)
        self.redis = redis

    def start_all(self, match_pool: str = "solo", **env: str) -> None:
        self.env.update(env)
        self.start_web()
        self.start_worker()
        queues = f"{self.env['ARMADA_CHALLENGES_QUEUE']},{self.env['ARMADA_MATCHES_QUEUE']}"
        LocalSite.start_worker(self, "matches", queues, f"matches-{uuid.uuid4().hex[:6]}@%h", pool=match_pool,
                               log_prefix="worker-matches", env={"ARMADA_SANDBOX_WARM_PAIRS": "1"})
        periodic = self.env["ARMADA_PERIODIC_QUEUE"]
        LocalSite.start_worker(self, "periodic", periodic, f"{periodic}@%h")
        self.start_beat()
        self.wait_until("the web server", 60, self.web_answers)

    def alive(self) -> list[str]:
        """Names of the site's processes that exited (empty: all run)."""
        return [name for name, proc in self.procs.items() if proc.poll() is not None]


def make_site(tmp_path: Path, armada: Any, engine: Any = None) -> FaultSite:
    redis = RedisServer(tmp_path / "redis").start()
    suffix = uuid.uuid4().hex[:8]
    config = armada(validation_queue=f"fv-{suffix}", matches_queue=f"fm-{suffix}", challenges_queue=f"fc-{suffix}")
    env = {
        **os.environ, **database_env(),
        "REDIS_URL": redis.url, "CELERY_BROKER_URL": "", "CACHE_URL": "",
        "ARMADA_DATA_DIR": str(tmp_path), "ARMADA_VALIDATION_QUEUE": config.validation_queue,
        "ARMADA_MATCHES_QUEUE": config.matches_queue, "ARMADA_CHALLENGES_QUEUE": config.challenges_queue,
        "ARMADA_PERIODIC_QUEUE": f"fp-{suffix}", "ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": 30}',
        "ARMADA_MATCH_WORKERS": "1", "ARMADA_MATCHMAKING_S": "2", "ARMADA_REAP_S": str(REAP_S),
        "ARMADA_SWEEP_S": "5", "ARMADA_HEARTBEAT_S": str(HEARTBEAT_S),
        "ARMADA_HEARTBEAT_TIMEOUT_S": str(HEARTBEAT_TIMEOUT_S), "ARMADA_LOST_MESSAGE_S": str(LOST_MESSAGE_S),
        "ARMADA_VALIDATION_RETRY_S": "2", "CACHE_PREFIX": f"fault-{suffix}", **PRODUCTION,
        "PYTHONUNBUFFERED": "1",
    }
    if engine is not None:
        env["DOCKER_HOST"] = engine.docker_host
    return FaultSite(env, tmp_path, redis)


@pytest.fixture
def fault_site(transactional_db, tmp_path, armada, request):
    from tests.support.services import require_binary, require_docker, require_redis

    require_redis()
    require_docker()
    require_binary("redis-server")
    engine = request.getfixturevalue("own_engine") if "own_engine" in request.fixturenames else None
    site = make_site(tmp_path, armada, engine)
    try:
        yield site
    finally:
        site.stop()
        site.redis.stop()


@pytest.fixture(scope="session")
def own_engine():
    """A Docker engine of this test process's own (infra/dockerd-second.sh), removed at the end."""
    from tests.support.docker_engine import SecondEngine, require_second_engine

    require_second_engine()
    engine = SecondEngine(f"t{os.getpid()}")
    engine.start()
    try:
        yield engine
    finally:
        engine.purge()


def ranked(*statuses: str) -> Any:
    from armada_web.matches.models import Match

    return Match.objects.filter(kind="ranked", status__in=statuses)


def counted_once() -> None:
    """Every finished ranked match moved both ratings once; nothing else moved any."""
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.matches.models import Match

    finished = Match.objects.filter(kind="ranked", status="finished")
    assert RatingChange.objects.count() == 2 * finished.count()
    assert not RatingChange.objects.exclude(match__in=finished).exists()
    assert sum(Rating.objects.values_list("games", flat=True)) == 2 * finished.count()


def two_bots(site: FaultSite) -> dict[str, str]:
    """Alice's and Bob's valid Galaxy bots (uploaded through the API); their tokens."""
    tokens = {}
    for username, name in (("alice", "alpha"), ("bob", "bravo")):
        tokens[username] = token = token_for(site, username)
        source = starter_file("greedy", "galaxy").read_bytes()
        version = upload(site, token, "galaxy", name, "main.py", source)
        assert wait_version(site, token, version["id"], ("valid", "invalid", "error"))["status"] == "valid"
    return tokens


def wait_running(seconds: float = 120) -> Any:
    return wait_for("a ranked match running", seconds, lambda: ranked("running").order_by("id").first(), pause=0.2)


def test_redis_down_then_back_empty_the_site_answers_and_heals_by_itself(fault_site):
    """Redis stopped for a few seconds, then started without its data (a restart without
    persistence): pages and API reads answer meanwhile, an upload answers 503 saying it is kept,
    the workers and beat wait for Redis; once it is back the upload is validated, the matches whose
    messages were lost are sent again and played, and the ladder goes on, each match counted once."""
    from armada_web.bots.models import BotVersion

    site = fault_site
    site.start_all()
    tokens = two_bots(site)
    wait_for("a ranked match finished", 120, lambda: ranked("finished").exists())
    site.redis.kill()
    down = time.monotonic()
    from armada_web.bots.models import Bot

    alpha = Bot.objects.get(name="alpha").pk
    waiting = set(ranked("queued", "running").values_list("id", flat=True))
    assert get(site.url + "/ladder/galaxy/")[0] == 200
    assert call(site, "GET", "/api/ladder/galaxy/", tokens["alice"])[0] == 200
    assert call(site, "GET", "/api/matches/")[0] == 200
    health, body = get(site.url + "/healthz")
    assert health == 503 and json.loads(body)["failed"] == ["redis"]
    status, refused = call(site, "POST", f"/api/bots/{alpha}/versions/", tokens["alice"],
                           files={"file": ("main.py", starter_file("random", "galaxy").read_bytes())})
    assert status == 503 and "was saved" in refused["detail"], refused
    kept = BotVersion.objects.get(bot_id=alpha, number=2)
    assert kept.status == "pending"
    time.sleep(max(0.0, 5 - (time.monotonic() - down)))
    assert site.alive() == [], site.log("worker-matches")[-3000:]  # nobody gave up on Redis
    site.redis.start()  # empty
    back, back_at = time.monotonic(), _ago(0)
    wait_for("the kept upload validated", 90, lambda: BotVersion.objects.get(pk=kept.pk).status == "valid")
    wait_for("the matches in flight at the fault settled", 120,
             lambda: not ranked("queued", "running").filter(id__in=waiting).exists())
    later = wait_for("a ranked match made after the restart finished", 120,
                     lambda: ranked("finished").filter(created__gt=back_at).first())
    healed = time.monotonic() - back
    assert healed < LOST_MESSAGE_S + REAP_S + 60, healed
    assert later.attempts >= 1
    assert site.alive() == []
    counted_once()


def _ago(seconds: float) -> Any:
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(seconds=seconds)


def test_a_worker_child_killed_mid_match_is_taken_over_at_once_and_leaves_nothing(fault_site, make_user, valid_version):
    """make up's workers run their tasks in a child process: killed with SIGKILL, Celery gives its
    message back at once, and the delivery takes the match over (its holder is gone) without
    waiting for the heartbeat (here 5 minutes: only the take-over can be that quick); the dead
    child's warm containers go (the new child holds the same slots: they are another lease's)."""
    from armada_sandbox._engine import docker_client
    from armada_web.matches.models import Match

    site = fault_site
    site.start_all(match_pool="prefork", ARMADA_HEARTBEAT_TIMEOUT_S="300")
    slow_bots(make_user, valid_version, code=SLOW)
    running = wait_running()
    [child] = site.children("matches")
    warm_of = {"label": [f"armada.worker={child}"]}
    wait_for("the child's warm containers", 60, lambda: docker_client().api.containers(filters=warm_of))
    time.sleep(2.0)
    os.kill(child, signal.SIGKILL)
    killed = time.monotonic()
    # Its message comes back behind the match queued next, which the new child plays first.
    again = wait_for("the match taken over", 120,
                     lambda: Match.objects.filter(pk=running.pk, attempts=2, status="running").first())
    assert time.monotonic() - killed < 100
    assert again.holder != running.holder and f":{child}:" in running.holder
    assert "is gone; taken over" in site.log("worker-matches")
    done = wait_for("the match played again", 120, lambda: Match.objects.filter(pk=running.pk, status__in=DONE).first())
    assert done.status == "finished" and done.attempts == 2, done.reason
    wait_for("the dead child's containers removed", 30,
             lambda: not docker_client().api.containers(all=True, filters=warm_of))
    counted_once()


def test_the_docker_engine_restarted_mid_match_the_match_is_played_again(fault_site, make_user, valid_version,
                                                                         own_engine):
    """The match's bots die with the engine: that is nobody's loss; the match is given back and played
    again once the engine answers, the ladder goes on, and the containers the restart left (stopped,
    not removed) and the work folders go."""
    from armada_sandbox import sweep_folders
    from armada_web.matches.models import Match

    site = fault_site
    site.start_all()
    slow_bots(make_user, valid_version, code=SLOW)
    running = wait_running()
    time.sleep(2.0)
    away = restart_engine(own_engine)
    restarted_at = _ago(0)
    done = wait_for("the match in flight settled", 180,
                    lambda: Match.objects.filter(pk=running.pk, status__in=DONE).first())
    assert done.status in ("finished", "void"), done.reason
    if done.status == "finished":
        assert done.attempts == 2  # the broken attempt counted for nothing
    wait_for("a ranked match made after the restart finished", 180,
             lambda: ranked("finished").filter(created__gt=restarted_at).exists())
    counted_once()
    assert away > 0 and site.alive() == []
    site.stop()
    client = own_engine.client()
    from armada_sandbox import sweep

    sweep(client=client)
    assert client.containers.list(all=True) == []  # nothing left on the engine
    client.close()
    sweep_folders()
    assert not any(_ours(folder, site) for folder in Path("/tmp/armada-sandbox").iterdir())


def _ours(folder: Path, site: FaultSite) -> bool:
    """Is `folder` a work folder of one of the site's (now stopped) processes?"""
    try:
        mark = (folder / "holder").read_text()
    except OSError:
        return False
    return any(f"-{proc.pid}-" in mark for proc in site._all)


def test_the_database_closed_for_a_few_seconds_the_site_recovers_and_counts_once(fault_site, make_user, valid_version):
    """PostgreSQL refuses connections for five seconds and every open one is closed: the site answers
    503 meanwhile, then 200; the match playing through it is recorded once (its worker retries)."""
    from django.conf import settings
    from django.db import connection

    from armada_web.matches.models import Match
    from tests.support.services import missing

    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        missing("the database outage test needs PostgreSQL (DATABASE_URL, infra/postgres.sh)")
    site = fault_site
    site.start_all()
    slow_bots(make_user, valid_version, code=SLOW)
    running = wait_running()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        mine = int(cursor.fetchone()[0])
    url = database_env()["DATABASE_URL"]
    with database_closed(url, keep=(mine,)):
        time.sleep(1.0)
        assert get(site.url + "/api/ladder/galaxy/")[0] == 503
        status, page = get(site.url + "/ladder/galaxy/")
        assert status == 503 and b"try again in a minute" in page
        time.sleep(4.0)
    wait_for("the site answering again", 30, lambda: get(site.url + "/api/ladder/galaxy/")[0] == 200)
    done = wait_for("the match in flight settled", 180,
                    lambda: Match.objects.filter(pk=running.pk, status__in=DONE).first())
    assert done.status == "finished", done.reason
    wait_for("another ranked match finished", 120,
             lambda: ranked("finished").exclude(pk=running.pk).filter(created__gt=done.created).exists())
    assert site.alive() == []
    counted_once()
