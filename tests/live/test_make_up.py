"""`make up` end to end: the site comes up healthy on the production settings (gunicorn, static files
by whitenoise with hashed names, DEBUG off with a secret key made once in the data folder, the
site's own error pages), a second run starts nothing, Ctrl-C stops what it started."""

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from armada.cli.client import Upload, multipart_body
from tests.support.localsite import free_port
from tests.support.services import require_docker, require_redis

ROOT = Path(__file__).resolve().parents[2]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


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

    with urllib.request.urlopen(base + "healthz", timeout=5) as response:
        assert response.headers["Server"] == "gunicorn"
    css = re.search(r'href="/static/(pages/site\.[0-9a-f]{12}\.css)"', page)
    assert css, page[:2000]
    request = urllib.request.Request(base + "static/" + css.group(1), headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert "immutable" in response.headers["Cache-Control"]
    deadline = time.monotonic() + 5  # (gunicorn writes the line once the response is sent)
    while "GET /static/" + css.group(1) not in (data_dir / "log" / "access.log").read_text():
        assert time.monotonic() < deadline, "the access log misses the request"
        time.sleep(0.1)


@pytest.mark.slow
def test_make_up_serves_the_site_and_ctrl_c_stops_it(tmp_path):
    require_redis()
    require_docker()
    port = free_port()
    env = {**os.environ, "PORT": str(port), "ARMADA_DATA_DIR": str(tmp_path)}
    for name in ("DATABASE_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "ARMADA_HTTPS"):
        env.pop(name, None)  # the one-machine defaults: SQLite under the data dir, production settings
    began = int(time.time())  # the labels count whole seconds
    up = subprocess.Popen(["make", "up"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, start_new_session=True)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 240
        lines: list[str] = []
        while time.monotonic() < deadline:
            line = up.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "Press Ctrl-C" in line:
                break
        output = "".join(lines)
        assert f"Armada is running at {base}" in output, output
        assert "username=admin password=" in output
        status, body = _get(base)
        assert status == 200 and b"Galaxy" in body
        _served_by_gunicorn_with_hashed_static(base, body.decode(), tmp_path)
        status, body = _get(base + "healthz")
        assert status == 200, body
        assert json.loads(body)["status"] == "ok"
        assert set(json.loads(body)["checks"]) == {"database", "redis", "storage", "docker"}
        # production settings: DEBUG off on a key of its own (made once, 0600), the site's own 404
        key = tmp_path / "secret.key"
        assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text()) >= 50
        status, body = _get(base + "no/such/page/")
        assert status == 404 and b'id="not-found"' in body and b"URLconf" not in body
        started = _children(up.pid)
        assert len(started) >= 4  # web server (gunicorn and its workers), the Celery workers, beat
        _upload_is_validated(base, output)

        second = subprocess.run(["make", "up"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
        assert second.returncode == 0, second.stdout + second.stderr
        assert "already running" in second.stdout

        lowering = subprocess.run(["sh", "-c", "echo -1 > /proc/self/oom_score_adj"], capture_output=True)
        if lowering.returncode == 0:  # root with CAP_SYS_RESOURCE: the host's OOM order, below any bot's
            scores = {int(Path(f"/proc/{pid}/oom_score_adj").read_text()) for pid in started
                      if os.path.exists(f"/proc/{pid}")}
            assert scores == {-500}, scores
        # the workers keep warm slots (issue 12): the validation pair and three match pairs (their
        # bot containers; each slot's network anchor is not counted)
        warm: set[str] = set()
        until = time.monotonic() + 60
        while len(warm) < 8 and time.monotonic() < until:  # a slot used by the validation is being remade
            time.sleep(0.5)
            warm = _warm_containers(began, owners=_children(up.pid))
        assert len(warm) >= 8
        killed = _kill_a_match_child(up.pid, began)  # its containers must not outlive the stop (issue 20)

        os.killpg(up.pid, signal.SIGINT)  # what Ctrl-C in the terminal does
        up.wait(timeout=60)
        until = time.monotonic() + 15  # make up has waited for its processes; their last moments
        while (alive := {pid for pid in started if os.path.exists(f"/proc/{pid}")}) and time.monotonic() < until:
            time.sleep(0.2)
        assert alive == set(), {pid: _command(pid) for pid in alive}
        # a stopping worker removes its warm containers (worker_process_shutdown)
        left = warm & _warm_containers(began, stopped_too=True)
        assert left == set()
        assert _warm_containers(began, stopped_too=True, owners={killed}) == set()  # nor a killed child's
        with pytest.raises(OSError):
            urllib.request.urlopen(base, timeout=2)
        # Redis was running before: `make up` did not start it, so it must not have stopped it.
        socket.create_connection(("127.0.0.1", 6379), timeout=2).close()
    finally:
        if up.poll() is None:
            os.killpg(up.pid, signal.SIGKILL)
