"""Celery for real: a task goes through the Redis broker to a separate worker process."""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.services import require_redis

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def worker(tmp_path):
    """A real Celery worker process consuming a private queue; stopped after the test."""
    require_redis()
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "ARMADA_DATA_DIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "armada_web", "worker", "-I", "tests.support.celery_probes", "-Q", queue,
         "--pool", "solo",
         "--loglevel", "INFO", "-n", f"{queue}@%h", "--without-heartbeat", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        yield queue, proc, tmp_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_task_runs_in_worker_and_returns_result(worker):
    from tests.support.celery_probes import echo

    queue, proc, _ = worker
    result = echo.apply_async(args=["hello"], queue=queue)
    value = result.get(timeout=60)
    assert value["payload"] == "hello"
    assert value["pid"] != os.getpid()
    assert value["pid"] == proc.pid  # solo pool: the worker process itself ran it


def test_task_side_effect_is_visible(worker):
    from tests.support.celery_probes import write_marker

    queue, _, data_dir = worker
    token = uuid.uuid4().hex
    write_marker.apply_async(args=["celery-probe", token], queue=queue).get(timeout=60)
    deadline = time.monotonic() + 10
    marker = data_dir / "markers" / "celery-probe.txt"
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker.read_text() == token
