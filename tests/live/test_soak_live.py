"""A one-minute soak of a live site (issue 20; bench/faults.py runs ten minutes and measures memory):
Locust on loopback with page views, API reads, uploads and challenges at once while beat's
matchmaking plays the ladder. No answer may be a 5xx (or missing), no match may be stuck, and no
process may gain file descriptors beyond a few (the machine's engine is shared with other runs:
its containers are counted by the bench, on an engine of its own)."""

from __future__ import annotations

import pytest

from armada.botspec import starter_file
from tests.live.test_faults_live import make_site, ranked
from tests.live.test_validation_live import token_for, upload
from tests.live.test_validation_live import wait_for as wait_version
from tests.support.soak import run_soak

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]

SECONDS = 60


@pytest.fixture
def site(transactional_db, tmp_path, armada):
    from tests.support.services import require_binary, require_docker, require_redis

    require_redis()
    require_docker()
    require_binary("redis-server")
    import importlib.util

    if importlib.util.find_spec("locust") is None:  # found, not imported: it patches the process (gevent)
        from tests.support.services import missing

        missing("locust is not installed (pip install -e '.[dev]')")
    made = make_site(tmp_path, armada)
    try:
        yield made
    finally:
        made.stop()
        made.redis.stop()


def test_a_minute_of_mixed_load_gets_no_5xx_and_leaves_nothing_stuck(site, tmp_path):
    from datetime import timedelta

    from django.db.models import Q
    from django.utils import timezone

    from armada_web.matches.models import Match
    from tests.support.faults import wait_for

    site.start_all()
    users = []
    for username, starter in (("ann", "greedy"), ("ben", "random"), ("cat", "greedy")):
        token = token_for(site, username)
        version = upload(site, token, "galaxy", f"{username}-bot", "main.py",
                         starter_file(starter, "galaxy").read_bytes())
        assert wait_version(site, token, version["id"], ("valid", "invalid", "error"))["status"] == "valid"
        users.append({"username": username, "token": token, "bot": version["bot"]})
    wait_for("a ranked match finished", 120, lambda: ranked("finished").exists())

    def stuck() -> list[str]:
        now = timezone.now()
        rows = Match.objects.filter(Q(status="running", heartbeat__lt=now - timedelta(seconds=20))
                                    | Q(status="queued", queued__lt=now - timedelta(seconds=90)))
        return [f"match {m.pk} {m.status}" for m in rows]

    report = run_soak(site, {"users": users, "code": starter_file("greedy", "galaxy").read_text()}, SECONDS, 6,
                      tmp_path, warmup_s=20, stuck=stuck)
    print("\n".join(report.lines()))
    assert report.requests > 100, report.status
    assert report.errors == 0, report.bad
    assert report.stuck == []
    assert report.fd_growth() <= 10, report.lines()
    assert site.alive() == []
    assert ranked("finished").count() >= 3
