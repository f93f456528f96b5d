"""The SDK installs on its own into a clean environment and plays a match there, with no Django."""

import json
import shutil
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
    # (from a copy: setuptools builds in the source folder, where another build at once would mix files)
    source = tmp_path / "sdk"
    shutil.copytree(ROOT / "sdk", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
         str(source)],
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
    check_installed_docs(env_dir, tmp_path)
    # the imitation starter's files are package data too (a plain folder, not a package)
    made = subprocess.run([str(env_dir / "bin" / "armada"), "new", "learner", "--game", "galaxy", "--starter",
                           "imitation"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in (tmp_path / "learner").iterdir()) == [
        "README.md", "armada.json", "encoding.py", "main.py", "train.py"]


def check_installed_docs(env_dir: Path, tmp_path: Path) -> None:
    """`armada docs` reads the documents from the installed wheel: the same bytes as the repository's docs/."""
    armada = str(env_dir / "bin" / "armada")
    listed = subprocess.run([armada, "docs"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert listed.returncode == 0, listed.stderr
    for slug in ("galaxy", "galaxy-schema", "mothership", "protocol", "bot-library", "bots-environment", "cli",
                 "replay-format", "decisions", "rl", "imitation"):
        assert f"\n  {slug} " in listed.stdout
    shown = subprocess.run([armada, "docs", "galaxy"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (ROOT / "docs" / "games" / "galaxy.md").read_text(encoding="utf-8")
    where = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                            "import armada.docs as d; print(d.topic('galaxy-schema').path)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    assert where.startswith(str(env_dir)) and Path(where).read_bytes() == (
        ROOT / "docs" / "games" / "galaxy-schema.md").read_bytes()
    opened = subprocess.run([armada, "docs", "galaxy", "--open", "--out", str(tmp_path / "pages")],
                            capture_output=True, text=True, cwd=tmp_path, timeout=60,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "BROWSER": "false"})
    assert opened.returncode == 0, opened.stderr
    page = tmp_path / "pages" / "galaxy.html"
    assert opened.stdout == f"docs written to {page}\n"
    assert f"open {page} in one" in opened.stderr
    assert 'href="protocol.html"' in page.read_text(encoding="utf-8")
