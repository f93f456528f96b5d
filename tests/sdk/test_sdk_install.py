"""The SDK installs on its own into a clean environment and plays a match there, with no Django."""

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_sdk_installs_alone_and_plays(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
         str(ROOT / "sdk")],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = wheels.glob("armada-*.whl")
    with zipfile.ZipFile(wheel) as archive:  # PEP 561: type checkers use the SDK's hints
        assert "armada/py.typed" in archive.namelist()
    install = subprocess.run(  # offline: the SDK needs nothing but the standard library
        [str(python), "-m", "pip", "install", "--no-index", "-q", str(wheel)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], capture_output=True,
                            text=True, check=True).stdout
    names = {p["name"].lower() for p in json.loads(listed)}
    assert "armada" in names
    assert not names & {"django", "docker", "celery", "djangorestframework"}
    played = subprocess.run(
        [str(env_dir / "bin" / "armada"), "play", "builtin:greedy", "builtin:random", "--game", "galaxy",
         "--seed", "5", "--json"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout)
    assert summary["game"] == "galaxy" and summary["seed"] == 5
    assert [p["status"] for p in summary["players"]] == ["ok", "ok"]
    # the viewer's files are package data of the wheel: --html works from the installed SDK alone
    replay = tmp_path / "g.json.gz"
    subprocess.run([str(env_dir / "bin" / "armada"), "play", "builtin:greedy", "builtin:random", "--seed", "5",
                    "--replay", str(replay), "--json"], capture_output=True, text=True, check=True, timeout=120)
    html = subprocess.run([str(env_dir / "bin" / "armada"), "replay", str(replay), "--html"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert html.returncode == 0, html.stderr
    page = (tmp_path / "g.html").read_text(encoding="utf-8")
    assert "ArmadaViewer.mount" in page and ".armada-viewer" in page
    assert sys.executable != str(python)
