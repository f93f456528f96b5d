"""Fixtures for the `armada login` / `armada submit` tests: a fake site and a clean config home."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from armada.cli import polling
from tests.sdk.cli.fake_site import FakeSite, Serving


@pytest.fixture
def site() -> Iterator[FakeSite]:
    """A real HTTP server on 127.0.0.1 speaking the API contract, recording what it receives."""
    with Serving() as fake:
        yield fake


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty XDG_CONFIG_HOME, no ARMADA_* variables, quick polling; returns the config file's path."""
    config_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    monkeypatch.delenv("ARMADA_TOKEN", raising=False)
    monkeypatch.delenv("ARMADA_SERVER", raising=False)
    monkeypatch.setattr(polling, "POLL_FIRST_S", 0.01)
    monkeypatch.setattr(polling, "POLL_MAX_S", 0.05)
    return config_home / "armada" / "config.json"


@pytest.fixture(scope="module")
def galaxy_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short Galaxy game's replay (seed 5, 20 turns) for the `armada replay` tests."""
    from armada.cli.main import main

    path = tmp_path_factory.mktemp("rep") / "g.json.gz"
    assert main(["play", "builtin:greedy", "builtin:random", "--seed", "5", "--config", '{"max_turns": 20}',
                 "--replay", str(path), "--json"]) == 0
    return path
