"""/metrics and /status/ of a live site (gunicorn, production settings, real Redis) report every
queue of the registry (armada_web.jobs.queues), each named from its setting, with its depth: the
finals, events and periodic queues included, every priority's list counted."""

from __future__ import annotations

import json
import urllib.request
import uuid

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from armada_web.jobs import queues

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.slow]


def test_every_queue_named_from_settings_shows_its_depth(live_web, settings):
    run = uuid.uuid4().hex[:8]
    names = {q.role: f"test-{q.role}-{run}" for q in queues.QUEUES}
    env = {f"ARMADA_{role.upper()}_QUEUE": name for role, name in names.items()}
    site = live_web(workers=1, ARMADA_METRICS_ALLOW="127.0.0.1", **env)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    depths = {name: n + 1 for n, name in enumerate(names.values())}  # a different depth for each queue
    try:
        for name, depth in depths.items():
            if depth > 1:
                broker.rpush(name, *[b"{}"] * (depth - 1))
            broker.rpush(f"{name}{queues.PRIORITY_SEP}{queues.PRIORITY_STEPS[-1]}", b"{}")  # a priority message
        with urllib.request.urlopen(f"http://127.0.0.1:{site.port}/metrics", timeout=10) as response:
            body = response.read().decode()
        with urllib.request.urlopen(f"http://127.0.0.1:{site.port}/api/status/", timeout=10) as response:
            status = json.loads(response.read())
    finally:
        for name in depths:
            broker.delete(*queues.redis_keys(name))
    found = {f.name: f for f in text_string_to_metric_families(body)}
    shown = {s.labels["queue"]: s.value for s in found["armada_queue_depth"].samples}
    assert shown == depths  # every queue, by the name its setting gives, and nothing else
    assert {s.labels["queue"] for s in found["armada_workers_live"].samples} == set(depths)
    assert status["queues"] == depths
    assert "celery" not in shown  # the periodic queue is read from its setting, not written as Celery's default
