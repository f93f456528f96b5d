"""The SQLite database file is its owner's alone from the first command that makes it (an organiser's
trial: `manage.py restore` into a new data folder left it 0644, password hashes readable by every
user of the machine, until the next `make up`)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from armada_web.ops.dbfile import owner_only

ROOT = Path(__file__).resolve().parents[2]


def test_a_database_a_command_creates_is_0600(tmp_path):
    env = {**os.environ, "ARMADA_DATA_DIR": str(tmp_path)}
    for name in ("DATABASE_URL", "ARMADA_SQLITE_PATH", "PYTHONPATH"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((tmp_path / "armada.sqlite3").stat().st_mode) == 0o600


def test_a_readable_file_is_closed_and_other_databases_are_left_alone(tmp_path):
    file = tmp_path / "db.sqlite3"
    file.write_bytes(b"")
    file.chmod(0o644)
    owner_only(None, SimpleNamespace(vendor="postgresql", settings_dict={"NAME": str(file)}))
    assert stat.S_IMODE(file.stat().st_mode) == 0o644
    owner_only(None, SimpleNamespace(vendor="sqlite", settings_dict={"NAME": str(file)}))
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    owner_only(None, SimpleNamespace(vendor="sqlite", settings_dict={"NAME": ":memory:"}))  # (nothing to do)
