"""`make up` end to end, two of them side by side on one machine (the README's "a second instance
beside the first"), each with its own port, data folder and Redis database, sharing the machine's
Docker engine and a Redis server that the first starts (here on a port of the test's own).

The second, with its demo bots, is the one a newcomer runs: the site comes up healthy on the
production settings (gunicorn, static files by whitenoise with hashed names, DEBUG off with a secret
key made once in the data folder, the site's own error pages), an upload is validated, a second run
starts nothing, its workers keep warm slots. Stopping the first (Ctrl-C) stops its processes and
leaves the Redis server it started running, since the second still uses it: the second stays
healthy and keeps playing its demo bots' ranked matches. Stopping the second, the last user of that
Redis server, stops it (infra/services.sh), and its processes, their warm containers (a killed
worker child's too) and the site are gone; the Docker engine, which neither started, keeps running."""

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

from armada.cli.client import Upload, multipart_body
from tests.support.localsite import free_port
from tests.support.services import missing, require_docker, require_redis

ROOT = Path(__file__).resolve().parents[2]
#: seconds for one `make up` to come up (two at once on a busy machine), and for a new match to finish
START_S = 420
MATCH_S = 300

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow,
              pytest.mark.timeout(2 * START_S + MATCH_S + 480)]


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "(gone)"


def _children(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    tree = [tuple(map(int, line.split())) for line in out.splitlines() if line.strip()]
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in tree if parent in frontier} - found
        found |= frontier
    return found


def _warm_containers(since: float, stopped_too: bool = False, owners: set[int] | None = None) -> set[str]:
    """Ids of the warm bot containers made since `since` (epoch s; a plain listing, no inspect), by
    the processes `owners` if given (other checkouts on this host may run their own workers)."""
    from armada_sandbox._engine import docker_client

    listed = docker_client().api.containers(all=stopped_too, filters={"label": "armada.warm=1"})
    return {entry["Id"] for entry in listed
            if "armada.anchor" not in (labels := entry.get("Labels") or {})
            and float(labels.get("armada.created", 0)) >= since
            and (owners is None or labels.get("armada.worker") in {str(pid) for pid in owners})}


def _kill_a_match_child(up_pid: int, since: float) -> int:
    """SIGKILL a child process of `make up`'s match worker (its warm containers are left behind);
    returns its pid once Celery has replaced it."""
    named = {pid for pid in _children(up_pid) if os.path.exists(f"/proc/{pid}/cmdline")
             and b"-n\0matches." in Path(f"/proc/{pid}/cmdline").read_bytes()}
    # the worker's main process: its prefork children carry the same command line (descendants, a set)
    worker = next(pid for pid in named if not any(pid in _children(other) for other in named - {pid}))
    until = time.monotonic() + 60  # a child that holds warm slots (each makes its pool when it starts)
    while not (holding := [pid for pid in sorted(_children(worker)) if _warm_containers(since, owners={pid})]):
        assert time.monotonic() < until, "no child of the match worker holds warm slots"
        time.sleep(0.5)
    child = holding[0]
    os.kill(child, signal.SIGKILL)
    until = time.monotonic() + 60
    while (child in _children(worker) or len(_children(worker)) < 1) and time.monotonic() < until:
        time.sleep(0.2)
    return child


def _call(url: str, token: str | None = None, body: dict | None = None, file: bytes | None = None):
    headers = {"Authorization": f"Token {token}"} if token else {}
    data = None
    if file is not None:
        data, headers["Content-Type"] = multipart_body({"file": Upload("main.py", file)})
    elif body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _upload_is_validated(base: str, output: str) -> None:
    """The demo admin uploads a starter through the API; the validation worker `make up` runs checks it."""
    import re

    from armada.botspec import starter_file

    username, password = re.search(r"username=(\S+) password=(\S+?)\)?\s", output).groups()
    token = _call(base + "api/tokens/", body={"username": username, "password": password, "name": "test"})["token"]
    bot = _call(base + "api/bots/", token, {"name": f"up-{os.getpid()}", "game": "mothership"})
    version = _call(base + f"api/bots/{bot['id']}/versions/", token,
                    file=starter_file("greedy", "mothership").read_bytes())
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = _call(base + f"api/versions/{version['id']}/", token)["status"]
        if status not in ("pending", "validating"):
            break
        time.sleep(0.5)
    assert status == "valid"


def _served_by_gunicorn_with_hashed_static(base: str, page: str, data_dir: Path) -> None:
    """gunicorn answers (not runserver), its access log is in the data folder's logs, and the page
    links its style sheet by a hashed name that whitenoise serves compressed and cached for ever."""
    import re

    # (not a latency check, which test_slow_clients_live.py makes: the health check writes to storage,
    # and while this instance validates six bots beside the rest of the suite that once took over 5 s)
    with urllib.request.urlopen(base + "healthz", timeout=30) as response:
        assert response.headers["Server"] == "gunicorn"
    css = re.search(r'href="/static/(pages/site\.[0-9a-f]{12}\.css)"', page)
    assert css, page[:2000]
    request = urllib.request.Request(base + "static/" + css.group(1), headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert "immutable" in response.headers["Cache-Control"]
    deadline = time.monotonic() + 5  # (gunicorn writes the line once the response is sent)
    while "GET /static/" + css.group(1) not in (data_dir / "log" / "access.log").read_text():
        assert time.monotonic() < deadline, "the access log misses the request"
        time.sleep(0.1)


class Instance:
    """One `make up` in a session of its own (Ctrl-C is SIGINT to its process group), its output
    gathered by a thread."""

    def __init__(self, name: str, port: int, data: Path, redis_url: str, demo: bool = True,
                 background: bool = False) -> None:
        """`background`: started as a shell's background job is (`make up &`, nohup), with SIGINT
        ignored from the start, which a shell script cannot trap."""
        self.url = f"http://127.0.0.1:{port}/"
        env = {**os.environ, "PORT": str(port), "ARMADA_DATA_DIR": str(data), "REDIS_URL": redis_url,
               "ARMADA_DEMO": "true" if demo else "false",
               "MATCH_WARM_PAIRS": "1", "ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": 30}',
               "THROTTLE_ANON": "100000/min"}
        for variable in ("DATABASE_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "ARMADA_HTTPS", "CACHE_PREFIX"):
            env.pop(variable, None)  # the one-machine defaults: SQLite under the data dir, production settings
        self.name = name
        self.env = env
        self.data = data
        self.lines: list[str] = []
        ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if background else None
        self.process = subprocess.Popen(["make", "up"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True,
                                        preexec_fn=ignore)
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

    def stop(self) -> set[int]:
        """What Ctrl-C in its terminal does; returns the processes it had started that are still
        alive 15 s after `make up` ended (its last moments). A stop is no failure: make ends as
        Ctrl-C ends it (by the signal, or 0 when it ignores SIGINT as a background job does)."""
        started = _children(self.process.pid)
        os.killpg(self.process.pid, signal.SIGINT)
        assert self.process.wait(timeout=120) in (0, -signal.SIGINT), self.output[-3000:]
        until = time.monotonic() + 15
        while (alive := {pid for pid in started if os.path.exists(f"/proc/{pid}")}) and time.monotonic() < until:
            time.sleep(0.2)
        time.sleep(1)  # the reader thread has the last lines
        return alive


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False


def _newcomers_site(second: Instance) -> None:
    """What a newcomer's `make up` shows: its URL and the demo admin, the production settings, an
    upload validated by its validation worker."""
    base, output = second.url, second.output
    assert f"Armada is running at {base}" in output, output[-3000:]
    assert "username=admin password=" in output
    status, body = second.get("")
    assert status == 200 and b"Galaxy" in body
    _served_by_gunicorn_with_hashed_static(base, body.decode(), second.data)
    status, body = second.get("healthz")
    assert status == 200, body
    assert json.loads(body)["status"] == "ok"
    assert set(json.loads(body)["checks"]) == {"database", "redis", "storage", "docker"}
    # production settings: DEBUG off on a key of its own (made once, 0600), the site's own 404
    key = second.data / "secret.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text()) >= 50
    status, body = second.get("no/such/page/")
    assert status == 404 and b'id="not-found"' in body and b"URLconf" not in body
    _upload_is_validated(base, output)


def test_two_make_ups_side_by_side_serve_play_and_stop_with_ctrl_c(tmp_path):
    require_redis()
    require_docker()
    if shutil.which("redis-server") is None:
        missing("redis-server is not installed")
    from armada_sandbox._engine import docker_client

    redis_port = free_port()  # a Redis server of the test's own, which the first instance starts
    first = second = None
    try:
        # (the first plays nothing: no demo bots; it starts the services and goes)
        first = Instance("the first instance", free_port(), tmp_path / "a", f"redis://127.0.0.1:{redis_port}/0",
                         demo=False, background=True)  # an organiser's `make up &`: SIGINT stops it all the same
        first.wait_for(f"starting Redis on port {redis_port}", 120)
        first.wait_for("Docker engine is running", 60)
        began = int(time.time())  # the warm containers' labels count whole seconds
        # the README's recipe: its own port, data folder and Redis database number
        second = Instance("the second instance", free_port(), tmp_path / "b", f"redis://127.0.0.1:{redis_port}/1")
        first.wait_for("Press Ctrl-C", START_S)
        second.wait_for("Press Ctrl-C", START_S)
        assert "Redis is running" in second.output and "starting Redis" not in second.output
        second.healthy()
        assert first.bots() == 0 and second.bots() == 6  # ARMADA_DEMO=false: no demo bots; else 3 users x 2
        _newcomers_site(second)
        started = _children(second.process.pid)
        assert len(started) >= 4  # web server (gunicorn and its workers), the Celery workers, beat

        again = subprocess.run(["make", "up"], cwd=ROOT, env=second.env, capture_output=True, text=True, timeout=240)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "already running" in again.stdout

        lowering = subprocess.run(["sh", "-c", "echo -1 > /proc/self/oom_score_adj"], capture_output=True)
        if lowering.returncode == 0:  # root with CAP_SYS_RESOURCE: the host's OOM order, below any bot's
            scores = {int(Path(f"/proc/{pid}/oom_score_adj").read_text()) for pid in started
                      if os.path.exists(f"/proc/{pid}")}
            assert scores == {-500}, scores
        # the workers keep warm slots (issue 12): the validation pair and the match pair
        # (MATCH_WARM_PAIRS=1; their bot containers, each slot's network anchor not counted)
        warm: set[str] = set()
        until = time.monotonic() + 60
        while len(warm) < 4 and time.monotonic() < until:  # a slot used by the validation is being remade
            time.sleep(0.5)
            warm = _warm_containers(began, owners=_children(second.process.pid))
        assert len(warm) >= 4

        assert first.stop() == set()  # every process it started is gone
        assert "exited on its own" not in first.output and "stopping what this run started" in first.output
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

        # a process that dies on its own is started again (a reliability trial: killing beat stopped
        # the whole site, the web server with it)
        beat = [pid for pid in _children(second.process.pid) if " beat " in _command(pid) and "celery" in _command(pid)]
        assert len(beat) == 1, {pid: _command(pid) for pid in _children(second.process.pid)}
        os.kill(beat[0], signal.SIGKILL)
        second.wait_for(f"beat (pid {beat[0]}) exited on its own; starting it again", 60)
        deadline = time.monotonic() + 60
        while not [pid for pid in _children(second.process.pid) if " beat " in _command(pid) and pid != beat[0]]:
            assert time.monotonic() < deadline, "beat was not started again"
            time.sleep(0.5)
        second.healthy()

        killed = _kill_a_match_child(second.process.pid, began)  # its containers must not outlive the stop (issue 20)
        alive = second.stop()
        assert alive == set(), {pid: _command(pid) for pid in alive}
        assert second.output.count("exited on its own") == 1  # beat's, above
        assert f"stopped redis-{redis_port}" in second.output, second.output[-3000:]
        assert not _answers(redis_port)  # the last user stopped the Redis server a make up started
        # a stopping worker removes its warm containers (worker_process_shutdown)
        assert warm & _warm_containers(began, stopped_too=True) == set()
        assert _warm_containers(began, stopped_too=True, owners={killed}) == set()  # nor a killed child's
        with pytest.raises(OSError):
            urllib.request.urlopen(second.url, timeout=2)
        assert docker_client().ping()  # the engine was running before: neither make up stops it
    finally:
        for instance in (first, second):
            if instance is not None and instance.process.poll() is None:
                os.killpg(instance.process.pid, signal.SIGKILL)
        if _answers(redis_port):  # (a failed run: not left behind)
            import redis

            redis.Redis(port=redis_port).shutdown(nosave=True)
