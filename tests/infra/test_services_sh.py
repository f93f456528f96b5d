"""infra/services.sh shares the machine's services between `make up` instances (issue 30): a Redis
server a make up started keeps running while another live instance uses it, and the last one to
leave stops it; an instance killed outright (its pid dead) counts for nothing; a server nobody's
make up started is never stopped. Here on a Redis port of the test's own, the instances being
`sleep` processes (the pid `make up` passes is its own)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.localsite import free_port
from tests.support.services import missing, require_docker

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "infra" / "services.sh"

pytestmark = [pytest.mark.docker]


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture
def services(tmp_path):
    """`run(*args)`: infra/services.sh with REDIS_URL on a free port; its output."""
    require_docker()  # (the script also checks the engine; a running one is only recorded)
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed")
    port = free_port()
    env = {**os.environ, "VENV": str(Path(sys.executable).parents[1]), "ARMADA_DATA_DIR": str(tmp_path),
           "REDIS_URL": f"redis://127.0.0.1:{port}/0"}
    sleepers: list[subprocess.Popen[bytes]] = []

    def run(*args: str) -> str:
        done = subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def instance() -> subprocess.Popen[bytes]:
        sleepers.append(subprocess.Popen(["sleep", "600"]))
        return sleepers[-1]

    run.port = port  # type: ignore[attr-defined]
    run.instance = instance  # type: ignore[attr-defined]
    try:
        yield run
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
        if _answers(port):
            import redis

            redis.Redis(port=port).shutdown(nosave=True)


def _gone(port: int) -> bool:
    deadline = time.monotonic() + 10
    while _answers(port) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _answers(port)


def test_the_last_live_instance_stops_the_redis_server_a_make_up_started(services):
    first, second = services.instance(), services.instance()
    assert f"starting Redis on port {services.port}" in services("--for", str(first.pid))
    assert "Redis is running" in services("--for", str(second.pid))

    out = services("release", str(first.pid))
    assert f"left redis-{services.port} running" in out and _answers(services.port)
    out = services("release", str(second.pid))
    assert f"stopped redis-{services.port}" in out and _gone(services.port)


def test_an_instance_killed_outright_does_not_keep_the_server(services):
    first, second = services.instance(), services.instance()
    services("--for", str(first.pid))
    services("--for", str(second.pid))
    second.kill()  # a make up killed with SIGKILL: its user file stays, its pid is dead
    second.wait()
    out = services("release", str(first.pid))
    assert f"stopped redis-{services.port}" in out and _gone(services.port)


def test_a_server_no_make_up_started_is_never_stopped(services):
    assert f"starting Redis on port {services.port}" in services()  # `make services`: runs until stopped by hand
    only = services.instance()
    assert "Redis is running" in services("--for", str(only.pid))
    out = services("release", str(only.pid))
    assert "stopped" not in out and _answers(services.port)
