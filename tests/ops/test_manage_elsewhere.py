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


def test_a_site_missing_one_table_and_migrate_itself_keep_their_own_error(tmp_path):
    """A review: the message covered every missing table, so `migrate` stopped on a broken database
    saying "run manage.py migrate", and a site short of one table was called "no site"."""
    import sqlite3

    env = {k: v for k, v in os.environ.items() if not k.startswith("ARMADA_") and k != "DATABASE_URL"}
    env["ARMADA_DATA_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    with sqlite3.connect(tmp_path / "armada.sqlite3") as db:
        db.execute("DROP TABLE seasons_season")
    done = subprocess.run([sys.executable, "manage.py", "season", "open", "spring"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "has no site in it" not in done.stderr
    assert "no such table: seasons_season" in done.stderr


def test_a_sites_data_folder_brings_its_variables(tmp_path):
    """An organiser's trial: `ARMADA_DATA_DIR=... manage.py season close` (as the message above said)
    closed the season but sent its integrity checks to Redis database 0, another site's queue: the
    site's task queue is in its manage.env, which `make up` writes beside its data with bash's
    `printf %q` (a review: read with shlex, a value with '#' was cut there and one with a newline,
    written `$'...'`, came back wrong)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ARMADA_") and k not in ("DATABASE_URL", "REDIS_URL", "THROTTLE_ANON")}
    env["ARMADA_DATA_DIR"] = str(tmp_path)
    tricky = "ab#c d'e\"f\\g$h!`x`\nline two\ttab é"
    subprocess.run(["bash", "-c", 'printf "export %s=%q\\n" ARMADA_DATA_DIR "$1" REDIS_URL "$2" THROTTLE_ANON "$3" '
                    '> "$1/manage.env"', "_", str(tmp_path), "redis://127.0.0.1:6379/14", tricky], check=True)
    show = ("import os; from django.conf import settings; "
            "print(repr((settings.CELERY_BROKER_URL, os.environ['THROTTLE_ANON'])))")

    def shown(**more: str) -> tuple[str, str]:
        done = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", show], cwd=ROOT,
                              env={**env, **more}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return eval(done.stdout)

    assert shown() == ("redis://127.0.0.1:6379/14", tricky)
    assert shown(REDIS_URL="redis://127.0.0.1:6379/9")[0] == "redis://127.0.0.1:6379/9"  # what is given wins
    # make up's own calls read none of it (an older run's manage.env named another database)
    assert shown(ARMADA_OWN_VARIABLES="1", THROTTLE_ANON="x")[0] == "redis://127.0.0.1:6379/0"
