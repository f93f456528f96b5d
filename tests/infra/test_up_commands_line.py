"""`make up`'s "Commands:" line runs `manage.py` with every variable the site runs with (an organiser's
trial: without REDIS_URL, a season closed from that line sent its integrity checks to another Redis
database, where no worker took them): up.sh keeps them in the data folder's manage.env (mode 0600, so a
URL's password is never printed) and the line reads it."""

from __future__ import annotations

import re
import shlex
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UP = ROOT / "infra" / "up.sh"


def functions() -> str:
    text = UP.read_text()
    found = [re.search(rf"^{name}\(\) \{{\n.*?^\}}\n", text, re.S | re.M) for name in ("write_manage_env",)]
    line = re.search(r"^commands_line\(\) \{.*\}\n", text, re.M)
    assert all(found) and line, "infra/up.sh defines write_manage_env and commands_line"
    return "".join(f.group(0) for f in found if f) + line.group(0)


def test_the_line_runs_manage_py_with_the_site_s_variables(tmp_path):
    data = tmp_path / "my data"
    data.mkdir()
    (data / "manage.env").write_text("old")
    (data / "manage.env").chmod(0o644)  # an older file: written anew, never readable by others meanwhile
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "REDIS_URL": "redis://:s3cret@127.0.0.1:6379/11",
           "ARMADA_FINALS_QUEUE": "finals & more", "DATABASE_URL": "postgresql://a:pw@db/armada?x=1&y=2",
           "UNRELATED": "not kept"}
    script = (functions() + f'DATA_DIR={shlex.quote(str(data))}; ROOT={shlex.quote(str(ROOT))}; VENV=/opt/venv; '
              'MANAGE_ENV="$DATA_DIR/manage.env"; export REDIS_URL ARMADA_FINALS_QUEUE DATABASE_URL UNRELATED; '
              'write_manage_env "$MANAGE_ENV"; commands_line')
    line = subprocess.run(["bash", "-c", script], env=env, check=True, capture_output=True, text=True).stdout
    kept = data / "manage.env"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert "s3cret" not in line and line.endswith("/opt/venv/bin/python manage.py ...)")
    # the line as an organiser pastes it, in a shell without the site's variables
    shown = "REDIS_URL|DATABASE_URL|ARMADA_FINALS_QUEUE|ARMADA_DATA_DIR|UNRELATED"
    probe = line.replace("/opt/venv/bin/python manage.py ...", f"env | grep -E '^({shown})=' | sort")
    got = subprocess.run(["bash", "-c", probe], env={"PATH": "/usr/bin:/bin"}, check=True, capture_output=True,
                         text=True).stdout.splitlines()
    assert got == [f"ARMADA_DATA_DIR={data}", "ARMADA_FINALS_QUEUE=finals & more",
                   "DATABASE_URL=postgresql://a:pw@db/armada?x=1&y=2", "REDIS_URL=redis://:s3cret@127.0.0.1:6379/11"]

    assert "Commands:      $(commands_line)" in UP.read_text()
