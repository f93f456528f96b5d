"""The development data app (demo bots, scale seeds) is installed with DEBUG on or ARMADA_DEVDATA set,
never by the production settings a competition runs (`make up` turns it on for its seeding
commands alone)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {"DEBUG": "false", "SECRET_KEY": "test-" + "k" * 60, "ARMADA_HTTPS": "false"}


def commands(**env: str) -> str:
    run = subprocess.run([sys.executable, "manage.py", "help", "--commands"], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, **env}, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_production_settings_leave_the_seeders_out():
    found = commands(**PRODUCTION)
    assert "migrate" in found.split()
    assert not {"seed_demo", "seed_scale", "ensure_demo_admin"} & set(found.split())


def test_the_seeders_are_there_when_asked_for_or_in_development():
    for env in ({**PRODUCTION, "ARMADA_DEVDATA": "true"}, {"DEBUG": "true"}):
        assert {"seed_demo", "seed_scale", "ensure_demo_admin"} <= set(commands(**env).split())


def test_make_up_turns_it_on_for_the_seeding_commands_only():
    up = (ROOT / "infra" / "up.sh").read_text()
    assert 'ARMADA_DEVDATA=true "$PY" manage.py seed_demo' in up
    assert "export ARMADA_DEVDATA" not in up and "ARMADA_DEVDATA=true make" not in up
