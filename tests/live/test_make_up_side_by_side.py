"""The README's "a second instance beside the first" (issue 30): two `make up` on one machine, each
with its own port, data folder and Redis database, share the machine's Redis server (here one the
first instance starts, on a port of the test's own) and Docker engine. Stopping the first (Ctrl-C)
leaves the Redis server it started running, since the second still uses it: the second stays
healthy and keeps playing its demo bots' ranked matches; stopping the second, the last user, stops
that Redis server (infra/services.sh)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support.localsite import free_port
from tests.support.services import missing, require_docker, require_redis

ROOT = Path(__file__).resolve().parents[2]
#: seconds for one `make up` to come up (two at once on a busy machine), and for a new match to finish
START_S = 420
MATCH_S = 300

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(2 * START_S + MATCH_S + 240)]


class Instance:
    """One `make up` in a session of its own (Ctrl-C is SIGINT to its process group), its output
    gathered by a thread."""

    def __init__(self, name: str, port: int, data: Path, redis_url: str, demo: bool = True) -> None:
        self.url = f"http://127.0.0.1:{port}/"
        env = {**os.environ, "PORT": str(port), "ARMADA_DATA_DIR": str(data), "REDIS_URL": redis_url,
               "ARMADA_DEMO": "true" if demo else "false",
               "MATCH_WARM_PAIRS": "1", "ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": 30}',
               "THROTTLE_ANON": "100000/min"}
        for variable in ("DATABASE_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "ARMADA_HTTPS", "CACHE_PREFIX"):
            env.pop(variable, None)  # the one-machine defaults: SQLite under the data dir, production settings
        self.name = name
        self.lines: list[str] = []
        self.process = subprocess.Popen(["make", "up"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for(self, text: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.output:
            assert self.process.poll() is None, f"{self.name} exited: {self.output[-3000:]}"
            assert time.monotonic() < deadline, f"{self.name}: no {text!r} within {seconds} s: {self.output[-3000:]}"
            time.sleep(0.5)

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            # (a fresh site's first API answers, beside another make up starting: seconds on a busy machine)
            with urllib.request.urlopen(self.url + path, timeout=60) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def healthy(self) -> None:
        status, body = self.get("healthz")
        assert status == 200, body

    def matches(self) -> list[dict]:
        status, body = self.get("api/matches/?page_size=100")
        assert status == 200, body
        return json.loads(body)["results"]

    def bots(self) -> int:
        status, body = self.get("api/bots/?page_size=100")
        assert status == 200, body
        return len(json.loads(body)["results"])

    def stop(self) -> None:
        """What Ctrl-C in its terminal does."""
        os.killpg(self.process.pid, signal.SIGINT)
        self.process.wait(timeout=120)
        time.sleep(1)  # the reader thread has the last lines


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False


def test_stopping_the_first_instance_leaves_the_second_healthy_and_playing(tmp_path):
    require_redis()
    require_docker()
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed")
    redis_port = free_port()  # a Redis server of the test's own, which the first instance starts
    first = second = None
    try:
        # (the first plays nothing: no demo bots; it starts the services and goes)
        first = Instance("the first instance", free_port(), tmp_path / "a", f"redis://127.0.0.1:{redis_port}/0",
                         demo=False)
        first.wait_for(f"starting Redis on port {redis_port}", 120)
        first.wait_for("Docker engine is running", 60)
        # the README's recipe: its own port, data folder and Redis database number
        second = Instance("the second instance", free_port(), tmp_path / "b", f"redis://127.0.0.1:{redis_port}/1")
        first.wait_for("Press Ctrl-C", START_S)
        second.wait_for("Press Ctrl-C", START_S)
        assert "Redis is running" in second.output and "starting Redis" not in second.output
        second.healthy()
        assert first.bots() == 0 and second.bots() == 6  # ARMADA_DEMO=false: no demo bots; else 3 users x 2

        first.stop()
        assert f"left redis-{redis_port} running" in first.output, first.output[-3000:]
        assert _answers(redis_port)
        second.healthy()
        # the second keeps playing: a ranked match made after the first stopped finishes
        newest = max((match["id"] for match in second.matches()), default=0)
        deadline = time.monotonic() + MATCH_S
        while not [match for match in second.matches() if match["id"] > newest and match["status"] == "finished"]:
            assert time.monotonic() < deadline, f"no new match finished within {MATCH_S} s: {second.matches()[:5]}"
            second.healthy()
            time.sleep(3)
        second.healthy()

        second.stop()
        assert f"stopped redis-{redis_port}" in second.output, second.output[-3000:]
        assert not _answers(redis_port)  # the last user stopped the Redis server a make up started
    finally:
        for instance in (first, second):
            if instance is not None and instance.process.poll() is None:
                os.killpg(instance.process.pid, signal.SIGKILL)
        if _answers(redis_port):  # (a failed run: not left behind)
            import redis

            redis.Redis(port=redis_port).shutdown(nosave=True)
