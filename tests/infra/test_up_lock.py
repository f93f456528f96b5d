"""One `make up` per data folder (an organiser's trial: a second one with the same ARMADA_DATA_DIR and
another PORT migrated and seeded the live database, started a second set of workers and rewrote the
first's site-url): infra/up.sh takes a lock in the data folder before it writes anything there, and
refuses, naming the processes that hold it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_second_make_up_on_a_data_folder_in_use_is_refused_and_writes_nothing(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "site-url").write_text("http://127.0.0.1:8395\n")  # the running one's
    holder = subprocess.Popen(["flock", str(data / "up.lock"), sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for _ in range(50):  # (until the holder has the lock)
            if subprocess.run(["flock", "-n", str(data / "up.lock"), "true"]).returncode != 0:
                break
            subprocess.run(["sleep", "0.1"])
        env = {**os.environ, "PORT": str(free_port()), "ARMADA_DATA_DIR": str(data)}
        env.pop("PYTHONPATH", None)
        done = subprocess.run(["bash", str(ROOT / "infra" / "up.sh")], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)
    finally:
        holder.kill()
        holder.wait(5)
    assert done.returncode == 1, done.stderr
    assert f"another make up runs with this data folder ({data}: processes {holder.pid}" in done.stderr
    assert (data / "site-url").read_text() == "http://127.0.0.1:8395\n"
    assert not (data / "manage.env").exists()


class _FakeSite:
    """An Armada site's /healthz on a loopback port, as another instance would answer it."""

    def __init__(self) -> None:
        self.port = free_port()
        code = ("import http.server\n"
                "class H(http.server.BaseHTTPRequestHandler):\n"
                "    def do_GET(self):\n"
                "        body = b'{\"status\": \"ok\", \"failed\": [], \"checks\": {}}'\n"
                "        self.send_response(200); self.send_header('Content-Length', str(len(body)))\n"
                "        self.end_headers(); self.wfile.write(body)\n"
                "    def log_message(self, *args): pass\n"
                f"http.server.HTTPServer(('127.0.0.1', {self.port}), H).serve_forever()\n")
        self.process = subprocess.Popen([sys.executable, "-c", code])
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            subprocess.run(["sleep", "0.05"])

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(5)


def _up(port: int, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PORT": str(port), "ARMADA_DATA_DIR": str(data)}
    env.pop("PYTHONPATH", None)
    env.pop("ARMADA_SITE_URL", None)
    return subprocess.run(["bash", str(ROOT / "infra" / "up.sh")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_another_instance_on_the_port_is_not_this_data_folders_site(tmp_path):
    """A documentation audit: `make up` with a port another checkout's site answers on said "already
    running" and exited 0, though nothing served this data folder; only its own instance (holding
    its lock, at the address it wrote) is "already running"."""
    site = _FakeSite()
    data = tmp_path / "data"
    data.mkdir()
    try:
        done = _up(site.port, data)
        assert done.returncode == 1, done.stdout + done.stderr
        assert f"another Armada instance, not the one keeping its data in {data}, answers at" in done.stderr
        assert "already running" not in done.stdout
        # this folder's own instance: the lock held and its port written (its address may differ: HOST,
        # ARMADA_SITE_URL behind a proxy)
        (data / "site-url").write_text("https://armada.example.org\n")
        (data / "up.port").write_text(f"{site.port}\n")
        holder = subprocess.Popen(["flock", str(data / "up.lock"), sys.executable, "-c",
                                   "import time; time.sleep(60)"])
        try:
            for _ in range(50):
                if subprocess.run(["flock", "-n", str(data / "up.lock"), "true"]).returncode != 0:
                    break
                subprocess.run(["sleep", "0.1"])
            (data / "up.port").write_text("1\n")  # its instance serves another port: this one is another's
            other = _up(site.port, data)
            (data / "up.port").write_text(f"{site.port}\n")
            again = _up(site.port, data)
        finally:
            holder.kill()
            holder.wait(5)
        assert other.returncode == 1 and "another make up runs with this data folder" in other.stderr, other.stderr
        assert again.returncode == 0, again.stdout + again.stderr
        assert f"Armada is already running at http://127.0.0.1:{site.port}/ (nothing started)" in again.stdout
    finally:
        site.stop()
    assert not (data / "manage.env").exists()
