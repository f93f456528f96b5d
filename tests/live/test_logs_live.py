"""Every line of a real worker's task (Celery's own "received" and "succeeded" lines, ours, the
sandbox's threads') carries the task's match or version id, on a live site with JSON logs (the
log lines in-process: tests/runtime/test_logs.py)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest


def _task_lines(log: str, task: str, field: str, value: int) -> list[dict[str, Any]]:
    """The JSON lines of the worker's log from the task's "received" line to its "succeeded" one."""
    entries = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    start = next(i for i, e in enumerate(entries) if "received" in e["message"] and e.get(field) == value)
    end = next(i for i, e in enumerate(entries) if i > start and "succeeded" in e["message"] and task in e["message"])
    return entries[start:end + 1]


@pytest.mark.docker
@pytest.mark.redis
@pytest.mark.slow
def test_every_line_of_a_workers_task_carries_its_id(live_site_factory):
    from armada.botspec import starter_file
    from armada_web.bots.models import BotVersion
    from armada_web.matches.services import create_match
    from tests.live.test_matches_live import wait_match
    from tests.live.test_validation_live import token_for, upload, wait_for

    site = live_site_factory(env={"ARMADA_LOG_FORMAT": "json"})
    token = token_for(site, "alice")
    version = upload(site, token, "galaxy", "alpha", "main.py", starter_file("greedy", "galaxy").read_bytes())
    assert wait_for(site, token, version["id"], ("valid", "invalid", "error"))["status"] == "valid"
    other = token_for(site, "bob")
    second = upload(site, other, "galaxy", "bravo", "main.py", starter_file("random", "galaxy").read_bytes())
    assert wait_for(site, other, second["id"], ("valid", "invalid", "error"))["status"] == "valid"
    time.sleep(0.5)  # (the "succeeded" line follows the row's update)
    lines = _task_lines(site.log("worker"), "validate_version", "version", version["id"])
    assert len(lines) >= 3 and all(e.get("version") == version["id"] for e in lines), lines

    match = create_match(game="galaxy", first=BotVersion.objects.get(pk=version["id"]),
                         second=BotVersion.objects.get(pk=second["id"]), kind="ranked", seed=5)
    assert wait_match(match.pk, ("finished", "void", "failed"), 240).status == "finished"
    time.sleep(0.5)
    lines = _task_lines(site.log("worker-matches"), "run_match", "match", match.pk)
    assert any("played; sandbox starts" in e["message"] for e in lines)
    assert all(e.get("match") == match.pk for e in lines), lines
