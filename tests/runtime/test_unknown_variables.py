"""An ARMADA_ variable nothing reads (a typo) is named with the nearest known one, by a system
check that `manage.py migrate` and `check` print (`make up`, compose's migrate): the organiser's
trial set ARMADA_FINAL_STAGES=3 and nothing said it had no effect."""

from __future__ import annotations

import io
import re
from pathlib import Path

from django.core.management import call_command

from armada_web.runtime.unknown import known_names, unknown_variables

ROOT = Path(__file__).resolve().parents[2]
#: Named in a test as what is not a setting (its validation plays the engine's own length).
NOT_READ = {"ARMADA_MOTHERSHIP_VALIDATION_TURNS"}


def test_a_misspelt_variable_is_named_with_the_nearest_known_one():
    env = {"ARMADA_FINAL_STAGES": "3", "ARMADA_FINALS_STAGES": "3", "ARMADA_SANDBOX_GALAXY_MEMORY_MB": "700",
           "ARMADA_SANDBOX_WARM_PAIRS": "3", "ARMADA_SERVER": "http://x", "ARMADA_ZZZ": "1", "PATH": "/bin"}
    assert unknown_variables(env) == [("ARMADA_FINAL_STAGES", "ARMADA_FINALS_STAGES"), ("ARMADA_ZZZ", None)]


def test_every_armada_variable_the_project_names_is_known():
    """The code, the infrastructure, the docs and the tests name no ARMADA_ variable the check would
    call unknown (so a new one cannot be forgotten in `runtime.unknown`)."""
    named: set[str] = set()
    for folder in ("platform", "sdk", "sandbox", "infra", "bench", "tests", "docs", ".ci"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".sh", ".yml", ".md", ".example", "") and \
                    "__pycache__" not in path.parts and path.stat().st_size < 2_000_000 and \
                    path != Path(__file__):  # (its misspelt examples)
                named |= set(re.findall(r"\bARMADA_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(errors="replace")))
    named |= set(re.findall(r"\bARMADA_[A-Z0-9_]*[A-Z0-9]\b", (ROOT / "Makefile").read_text()))
    assert len(named) > 100
    assert sorted(named - NOT_READ - known_names()) == []


def test_manage_py_check_warns_of_it(monkeypatch):
    monkeypatch.setenv("ARMADA_FINAL_STAGES", "3")
    err = io.StringIO()
    call_command("check", stdout=io.StringIO(), stderr=err)
    assert "(armada.W001) environment variable ARMADA_FINAL_STAGES is not one Armada reads: it has no effect" \
        in err.getvalue()
    assert "HINT: did you mean ARMADA_FINALS_STAGES?" in err.getvalue()
