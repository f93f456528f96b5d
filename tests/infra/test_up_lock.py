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
