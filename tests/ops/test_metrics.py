"""/metrics: Prometheus' text format, for staff (session or API token) and ARMADA_METRICS_ALLOW
addresses only (never through a proxy), 404 for everyone else; the figures are the database's
and Redis' (queue depths, matches ended by status, versions, durations, live workers)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from tests.support.services import require_redis

pytestmark = pytest.mark.django_db


def families(body: bytes) -> dict:
    return {family.name: family for family in text_string_to_metric_families(body.decode())}


def sample(found: dict, name: str, suffix: str = "", **labels: str) -> float:
    family = found[name]
    for s in family.samples:
        if s.name == name + suffix and all(s.labels.get(k) == v for k, v in labels.items()):
            return float(s.value)
    raise AssertionError(f"no sample {name}{suffix} {labels} in {family.samples}")


def test_only_staff_and_allowed_addresses_read_it(client, make_user, api, armada):
    assert client.get("/metrics").status_code == 404  # anonymous
    member = make_user("member")
    client.force_login(member)
    assert client.get("/metrics").status_code == 404  # signed in, not staff
    assert api(member).get("/metrics").status_code == 404  # a member's token
    client.logout()
    staff = make_user("boss", is_staff=True)
    assert api(staff).get("/metrics").status_code == 200  # a staff token (Prometheus' `authorization`)
    assert client.get("/metrics", HTTP_AUTHORIZATION="Token not-a-token").status_code == 404
    client.force_login(staff)
    response = client.get("/metrics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain; version=0.0.4")
    client.logout()

    armada(metrics_allow=("10.1.0.0/16", "192.0.2.7"), proxy_ssl_header="X-Forwarded-Proto")
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.7").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.2.0.1").status_code == 404
    # through the TLS proxy the address is the proxy's: never allowed by address
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_X_FORWARDED_PROTO="https").status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3", HTTP_X_FORWARDED_FOR="203.0.113.5").status_code == 404


def test_the_figures_are_the_databases(client, make_user, valid_version, armada, settings):
    require_redis()
    import redis

    from armada_web.bots.models import BotVersion
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    armada(matches_queue=f"metrics-test-{settings.ARMADA.validation_queue}",
           challenges_queue=f"metrics-challenges-{settings.ARMADA.validation_queue}")
    first = valid_version(make_user("alice"), "alpha")
    second = valid_version(make_user("bob"), "bravo")
    now = timezone.now()
    statuses = {"finished": [8, 45, 700], "void": [3], "failed": [2], "queued": [None], "running": [None, None]}
    for status, durations in statuses.items():
        for seconds in durations:
            match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=1)
            Match.objects.filter(pk=match.pk).update(
                status=status, started=now - timedelta(seconds=seconds or 0) if seconds else now,
                finished=now if seconds else None)
    BotVersion.objects.filter(pk=first.pk).update(started=now - timedelta(seconds=4), finished=now)
    BotVersion.objects.filter(pk=second.pk).update(started=now - timedelta(seconds=25), finished=now)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queue = settings.ARMADA.matches_queue
    broker.rpush(queue, b"a", b"b")
    broker.rpush(f"{queue}\x06\x163", b"c")  # a message of priority 3 waits in its own list
    client.force_login(make_user("boss", is_staff=True))
    try:
        found = families(client.get("/metrics").content)
    finally:
        broker.delete(queue, f"{queue}\x06\x163")
    assert sample(found, "armada_queue_depth", queue=queue) == 3
    assert sample(found, "armada_queue_depth", queue=settings.ARMADA.challenges_queue) == 0
    assert sample(found, "armada_matches", "_total", game="galaxy", status="finished") == 3
    assert sample(found, "armada_matches", "_total", game="galaxy", status="void") == 1
    assert sample(found, "armada_matches", "_total", game="galaxy", status="failed") == 1
    assert sample(found, "armada_matches_waiting", status="queued") == 1
    assert sample(found, "armada_matches_waiting", status="running") == 2
    assert sample(found, "armada_versions", status="valid") == 2
    assert sample(found, "armada_match_duration_seconds", "_bucket", le="10.0") == 1
    assert sample(found, "armada_match_duration_seconds", "_bucket", le="60.0") == 2
    assert sample(found, "armada_match_duration_seconds", "_bucket", le="+Inf") == 3
    assert sample(found, "armada_match_duration_seconds", "_count") == 3
    assert sample(found, "armada_match_duration_seconds", "_sum") == pytest.approx(753, abs=1)
    assert sample(found, "armada_validation_duration_seconds", "_bucket", le="5.0") == 1
    assert sample(found, "armada_validation_duration_seconds", "_sum") == pytest.approx(29, abs=1)
    assert "armada_workers_live" in found  # (no worker consumes this test's queues)
    assert sample(found, "armada_workers_live", queue=queue) == 0


def test_the_worker_hosts_show_with_their_workers_and_the_matches_they_played(client, make_user, valid_version,
                                                                               monkeypatch):
    from armada_web.jobs import broker, workers
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    monkeypatch.setattr(broker, "depths", lambda: {})
    monkeypatch.setattr(workers, "live", lambda: [
        workers.Worker("matches.8000@worker-2", "worker-2", ("matches",)),
        workers.Worker("validation.8000@worker-2", "worker-2", ("validation",)),
        workers.Worker("matches@vm", "vm", ("matches",))])
    first, second = valid_version(make_user("alice"), "alpha"), valid_version(make_user("bob"), "bravo")
    now = timezone.now()
    for host, status, ago in [("worker-2", "finished", 60), ("worker-2", "finished", 120), ("worker-2", "void", 5),
                              ("vm", "finished", 30), ("vm", "finished", 2 * 3600),  # before the last hour
                              ("", "void", 10)]:  # voided before any host claimed it
        match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=1)
        Match.objects.filter(pk=match.pk).update(status=status, host=host, finished=now - timedelta(seconds=ago))
    client.force_login(make_user("boss", is_staff=True))
    found = families(client.get("/metrics").content)
    assert sample(found, "armada_host_workers_live", host="worker-2") == 2
    assert sample(found, "armada_host_workers_live", host="vm") == 1
    played = {(s.labels["host"], s.labels["status"]): s.value for s in found["armada_host_matches_last_hour"].samples}
    assert played == {("worker-2", "finished"): 2, ("worker-2", "void"): 1, ("vm", "finished"): 1}
