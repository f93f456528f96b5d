"""`armada new`: a bot folder from a starter, which then plays; never overwrites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.botspec import starters_dir
from armada.cli.main import main


@pytest.mark.parametrize(("game", "starter", "expected"), [("galaxy", None, "greedy"),
                                                           ("mothership", "balanced", "balanced")])
def test_new_bot_plays(game: str, starter: str | None, expected: str, tmp_path: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["new", "mybot", "--game", game, "--dir", str(tmp_path)]
    if starter:
        argv += ["--from", starter]
    assert main(argv) == 0
    out = capsys.readouterr().out
    folder = tmp_path / "mybot"
    assert f"created {folder}/" in out
    assert (folder / "main.py").read_bytes() == (starters_dir(game) / f"{expected}.py").read_bytes()
    readme = (folder / "README.md").read_text()
    assert f"armada play {folder} builtin:random --game {game}" in readme
    assert "zip" in readme and "upload" in readme
    code = main(["play", str(folder), "builtin:random", "--game", game, "--seed", "1", "--json",
                 "--config", '{"max_turns": 10}' if game == "galaxy" else "{}"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["players"][0]["status"] == "ok"


def test_new_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "main.py").write_text("# mine\n")
    assert main(["new", "taken", "--game", "galaxy", "--dir", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (folder / "main.py").read_text() == "# mine\n"
    assert not (folder / "README.md").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["new", "x", "--game", "galaxy", "--from", "balanced"], "no starter bot 'balanced' for galaxy; available: "),
        (["new", "../evil", "--game", "galaxy"], "bad bot name"),
        (["new", "a/b", "--game", "galaxy"], "bad bot name"),
        (["new", "x", "--game", "galaxy", "--dir", "nowhere"], "does not exist"),
        (["new", "x"], "--game"),
    ],
)
def test_new_errors(argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
