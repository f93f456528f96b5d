"""`manage.py build_sdk_wheel` (what `make up` runs for the /sdk/ page): a wheel of the same SDK
sources is built once per machine and copied from the cache after; changed sources build anew.
(The real `pip wheel` runs in tests/pages/test_quick_start.py, whose newcomer installs it.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from armada_web.pages.management.commands import build_sdk_wheel as command


@pytest.fixture
def builds(monkeypatch, tmp_path):
    """Every `pip wheel` run, each writing a small wheel whose content is its number."""
    made: list[Path] = []

    def fake_pip_wheel(into: Path) -> Path:
        made.append(into)
        wheel = into / "armada-1.0-py3-none-any.whl"
        wheel.write_text(f"build {len(made)}")
        return wheel

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(command, "_pip_wheel", fake_pip_wheel)
    return made


def test_the_second_data_folder_gets_the_cached_wheel(builds, tmp_path):
    first = command.build_wheel(tmp_path / "a" / "sdk")
    second = command.build_wheel(tmp_path / "b" / "sdk")
    assert len(builds) == 1
    assert first.read_text() == second.read_text() == "build 1"
    cached = list((tmp_path / "cache" / "armada" / "sdk-wheels").rglob("*"))
    assert [path.name for path in cached if path.is_file()] == ["armada-1.0-py3-none-any.whl"]  # no staging left


def test_an_older_wheel_in_the_folder_is_replaced(builds, tmp_path):
    out = tmp_path / "sdk"
    out.mkdir()
    (out / "armada-0.9-py3-none-any.whl").write_text("old")
    command.build_wheel(out)
    assert sorted(path.name for path in out.iterdir()) == ["armada-1.0-py3-none-any.whl"]


def test_changed_sources_have_another_hash(tmp_path):
    sdk = tmp_path / "sdk"
    shutil.copytree(command.SDK / "armada", sdk / "armada", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(command.SDK / "pyproject.toml", sdk / "pyproject.toml")
    before = command.sources_hash(sdk)
    assert before == command.sources_hash(command.SDK)
    (sdk / "armada" / "__pycache__").mkdir(exist_ok=True)
    (sdk / "armada" / "__pycache__" / "x.pyc").write_bytes(b"junk")  # caches are not sources
    assert command.sources_hash(sdk) == before
    with (sdk / "armada" / "__init__.py").open("a") as init:
        init.write("# changed\n")
    assert command.sources_hash(sdk) != before


def test_a_cache_that_cannot_be_written_is_passed_by(builds, tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache's folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    wheel = command.build_wheel(tmp_path / "sdk")
    assert wheel.read_text() == "build 1" and wheel.parent == tmp_path / "sdk"
