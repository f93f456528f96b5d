"""Under CI (`CI=true`) a skip fails with its reason (tests/conftest.py): a library the project's own
files install, or root, missing in CI is a fault to see, not a test quietly left out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_skip_fails_under_ci_and_stays_a_skip_elsewhere(tmp_path: Path) -> None:
    probe = tmp_path / "test_probe.py"
    probe.write_text("import pytest\n\ndef test_probe():\n    pytest.skip('the probe is left out')\n")
    results = {}
    for ci in ("true", ""):
        env = {**os.environ, "CI": ci}
        env.pop("PYTHONPATH", None)
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
                               "--rootdir", str(ROOT), str(probe)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)
        results[ci] = (done.returncode, done.stdout)
    assert results["true"][0] == 1 and "skipped under CI, where every test must run" in results["true"][1]
    assert "the probe is left out" in results["true"][1]
    assert results[""][0] == 0 and "1 skipped" in results[""][1]
