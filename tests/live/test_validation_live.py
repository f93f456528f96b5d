"""Validation end to end: upload through the API of a live site, a real Celery worker on the
`validation` queue, Redis and Docker; good and bad bots of both games; a worker killed with
SIGKILL mid-validation leaves nothing `validating` once the reaper has run."""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
import zipfile
from typing import Any

import pytest

from armada.botspec import starter_file
from armada.cli.client import Upload, multipart_body

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]

CRASHER = 'import sys\nprint("cannot go on: no plan", file=sys.stderr, flush=True)\nraise SystemExit(3)\n'
BAD_ORDERS = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "init":
        print(json.dumps({"id": msg["id"], "name": "Overspenders"}), flush=True)
    elif msg["type"] == "orders":
        fighter = {"attack": 20, "defence": 20, "pattern": [1]}
        print(json.dumps({"id": msg["id"], "mothership": {"defence": 50}, "fighters": [fighter] * 5}), flush=True)
'''
SLOW_START = starter_file("random", "galaxy").read_text().replace(
    "from __future__ import annotations\n",
    "from __future__ import annotations\nimport time\ntime.sleep(3.5)  # within init_ms (5 s): slow, not invalid\n")


def call(site: Any, method: str, path: str, token: str | None = None, body: Any = None,
         files: dict[str, tuple[str, bytes]] | None = None) -> tuple[int, Any]:
    headers = {"Accept": "application/json"}
    data = None
    if token:
        headers["Authorization"] = f"Token {token}"
    if files:
        data, headers["Content-Type"] = multipart_body({field: Upload(name, content)
                                                        for field, (name, content) in files.items()})
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(site.url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def token_for(site: Any, username: str) -> str:
    site.create_user(username)
    status, data = call(site, "POST", "/api/tokens/", body={"username": username, "password": "a-long-test-password-42",
                                                            "name": "test"})
    assert status == 201, data
    return str(data["token"])


def upload(site: Any, token: str, game: str, name: str, filename: str, content: bytes) -> dict[str, Any]:
    status, bot = call(site, "POST", "/api/bots/", token, {"name": name, "game": game})
    assert status == 201, bot
    status, version = call(site, "POST", f"/api/bots/{bot['id']}/versions/", token, files={"file": (filename, content)})
    assert status == 201, version
    assert version["status"] == "pending"
    return dict(version)


def wait_for(site: Any, token: str, version_id: int, statuses: tuple[str, ...], seconds: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    data: dict[str, Any] = {}
    while time.monotonic() < deadline:
        worker = site.procs["worker"]
        if worker.poll() is not None:
            raise AssertionError(f"the worker exited ({worker.returncode}):\n{site.log('worker')}")
        _status, data = call(site, "GET", f"/api/versions/{version_id}/", token)
        if data["status"] in statuses:
            return data
        time.sleep(0.5)
    raise AssertionError(f"version stayed {data.get('status')}; worker log:\n{site.log('worker')}")


def zipped(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_good_and_bad_bots_of_both_games(validation_site):
    site = validation_site
    token = token_for(site, "alice")
    good_galaxy = upload(site, token, "galaxy", "greedy-one", "bot.zip",
                         zipped({"mybot/main.py": starter_file("greedy", "galaxy").read_text(),
                                 "mybot/helpers/notes.txt": "hi"}))
    good_ms = upload(site, token, "mothership", "balanced-one", "main.py",
                     starter_file("balanced", "mothership").read_bytes())
    bad_galaxy = upload(site, token, "galaxy", "crasher", "main.py", CRASHER.encode())
    bad_ms = upload(site, token, "mothership", "overspender", "main.py", BAD_ORDERS.encode())

    done = wait_for(site, token, good_galaxy["id"], ("valid", "invalid", "error"))
    assert done["status"] == "valid", done
    done = wait_for(site, token, good_ms["id"], ("valid", "invalid", "error"))
    assert done["status"] == "valid", done
    _s, bot = call(site, "GET", f"/api/bots/{good_ms['bot']}/", token)
    assert bot["active_version"] == good_ms["id"]  # the newest valid version becomes active

    crashed = wait_for(site, token, bad_galaxy["id"], ("valid", "invalid", "error"))
    assert crashed["status"] == "invalid"
    assert crashed["detail"].startswith("crashed"), crashed
    assert "cannot go on: no plan" in crashed["log"]  # the owner sees the stderr tail

    overspent = wait_for(site, token, bad_ms["id"], ("valid", "invalid", "error"))
    assert overspent["status"] == "invalid"
    assert overspent["detail"].startswith("invalid") and "100" in overspent["detail"], overspent  # MD-1 budget

    # MD-11: the orders of a valid race are stored with its version.
    from armada_web.bots.models import BotVersion

    stored = BotVersion.objects.get(pk=good_ms["id"])
    assert len(stored.orders["fighters"]) == 5 and stored.race_name
    # Nobody else sees the log.
    other = token_for(site, "bob")
    _s, seen = call(site, "GET", f"/api/versions/{bad_galaxy['id']}/", other)
    assert "log" not in seen and seen["status"] == "invalid"


def test_worker_killed_mid_validation_is_reaped_and_revalidated(validation_site, armada):
    """Its heartbeat (every 1 s here) goes silent: given back after ARMADA_HEARTBEAT_TIMEOUT_S (5 s)."""
    from armada_web.bots.models import BotVersion
    from armada_web.bots.tasks import reap

    armada(heartbeat_timeout_s=5)
    site = validation_site
    token = token_for(site, "carol")
    version = upload(site, token, "galaxy", "slowpoke", "main.py", SLOW_START.encode())
    wait_for(site, token, version["id"], ("validating",), seconds=120)
    site.kill_worker()
    killed = time.monotonic()
    assert BotVersion.objects.get(pk=version["id"]).status == "validating"

    while (counts := reap())["requeued"] == 0:  # the periodic reaper
        assert time.monotonic() - killed < 8, "not given back within the heartbeat's deadline"
        time.sleep(0.2)
    assert counts["requeued"] == 1
    row = BotVersion.objects.get(pk=version["id"])
    assert row.status == "pending" and row.attempts == 1

    site.start_worker()
    done = wait_for(site, token, version["id"], ("valid", "invalid", "error"), seconds=300)
    assert done["status"] == "valid", done
    assert done["attempts"] == 2
    assert not BotVersion.objects.filter(status="validating").exists()
