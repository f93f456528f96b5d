"""`make up`'s "Commands:" line names every variable a `manage.py` command needs to reach this site
(an organiser's trial: without REDIS_URL, a season closed from that line sent its integrity checks to
another Redis database, where no worker took them)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

UP = Path(__file__).resolve().parents[2] / "infra" / "up.sh"


def commands_line(**env: str) -> str:
    function = re.search(r"^site_variables\(\) \{\n.*?^\}\n", UP.read_text(), re.S | re.M)
    assert function, "infra/up.sh defines site_variables"
    script = function.group(0) + "DATA_DIR=/srv/armada; site_variables"
    return subprocess.run(["bash", "-c", script], env={"PATH": "/usr/bin:/bin", **env}, check=True,
                          capture_output=True, text=True).stdout


def test_the_line_carries_the_site_s_database_and_queue():
    assert commands_line() == "ARMADA_DATA_DIR=/srv/armada"
    assert commands_line(REDIS_URL="redis://127.0.0.1:6379/11") == (
        "ARMADA_DATA_DIR=/srv/armada REDIS_URL=redis://127.0.0.1:6379/11")
    line = commands_line(REDIS_URL="redis://:secret@127.0.0.1/2", DATABASE_URL="postgresql://a:pw@db/armada")
    assert line == "ARMADA_DATA_DIR=/srv/armada DATABASE_URL=(as given) REDIS_URL=(as given)"  # no password shown
    assert "$(site_variables) $VENV/bin/python manage.py" in UP.read_text()
