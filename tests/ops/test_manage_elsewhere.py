"""`manage.py` run without the site's variables (an organiser's trial: `manage.py season create`
after `make up` with ARMADA_DATA_DIR) opened another, empty database and ended in a traceback
("no such table: seasons_season"). It says which database it opened and what to give it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_command_on_a_database_without_the_site_says_what_to_give_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARMADA_") and k != "DATABASE_URL"}
    env["ARMADA_DATA_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "manage.py", "season", "open", "spring"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"season: the database {tmp_path / 'armada.sqlite3'} has no site in it" in done.stderr
    assert "give this command the ARMADA_DATA_DIR (or DATABASE_URL) the site was started with" in done.stderr
