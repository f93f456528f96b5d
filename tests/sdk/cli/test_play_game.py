"""`armada play` and `armada tournament` take the game from the bots' armada.json when --game is not given."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from armada.cli import botinfo
from armada.cli.common import CliError
from armada.cli.main import main
from tests.sdk.cli.bots import FIXED_MOTHERSHIP, IDLE_GALAXY, write_bot

SHORT = '{"max_turns": 12}'


def bot_of(folder: Path, source: str, game: str | None) -> str:
    write_bot(folder, source)
    if game is not None:
        botinfo.record(folder, game, "greedy")
    return str(folder)


def test_play_takes_the_game_from_armada_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    race = bot_of(tmp_path / "race", FIXED_MOTHERSHIP, "mothership")
    assert main(["play", race, "builtin:balanced", "--seed", "1", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["game"] == "mothership"
    assert "note" not in captured.err
    assert main(["play", f"{race}/main.py", race, "--seed", "1", "--json"]) == 0  # the file's folder says too
    assert json.loads(capsys.readouterr().out)["game"] == "mothership"


def test_an_explicit_game_wins_with_one_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    idle = bot_of(tmp_path / "idle", IDLE_GALAXY, "mothership")  # a wrong armada.json
    assert main(["play", idle, idle, "--game", "galaxy", "--seed", "2", "--config", SHORT, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["game"] == "galaxy"
    note = f"armada: note: playing galaxy as --game says, but {idle}/armada.json names mothership\n"
    assert captured.err.count("armada: note: playing") == 1 and note in captured.err


@pytest.mark.parametrize("command", [["play"], ["tournament", "-n", "1"]])
def test_bots_of_different_games_are_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    race = bot_of(tmp_path / "race", FIXED_MOTHERSHIP, "mothership")
    idle = bot_of(tmp_path / "idle", IDLE_GALAXY, "galaxy")
    assert main([*command, race, idle]) == 2
    err = capsys.readouterr().err
    assert (f"the bots play different games: {race}/armada.json names mothership but {idle}/armada.json "
            "names galaxy; pass --game galaxy or --game mothership") in err


def test_tournament_takes_the_game_from_armada_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = bot_of(tmp_path / "a", FIXED_MOTHERSHIP, "mothership")
    b = bot_of(tmp_path / "b", FIXED_MOTHERSHIP, None)
    assert main(["tournament", a, b, "-n", "1", "--jobs", "1", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "mothership"


def test_match_game(tmp_path: Path) -> None:
    plain = bot_of(tmp_path / "plain", IDLE_GALAXY, None)
    race = bot_of(tmp_path / "race", FIXED_MOTHERSHIP, "mothership")
    assert botinfo.match_game([plain, "builtin:balanced"], None) == ("galaxy", None)  # nothing says: galaxy
    assert botinfo.match_game(["builtin:greedy", race, race], None) == ("mothership", None)
    assert botinfo.match_game([race, "nope/main.py"], None) == ("mothership", None)  # its error comes later
    archive = tmp_path / "race.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("race/main.py", FIXED_MOTHERSHIP)
        out.writestr("race/armada.json", '{"game": "mothership", "starter": "balanced"}')
    assert botinfo.match_game([str(archive), plain], None) == ("mothership", None)
    assert botinfo.match_game([str(archive), race], "galaxy") == (
        "galaxy", f"playing galaxy as --game says, but the armada.json in {archive} names mothership, "
        f"{race}/armada.json names mothership")
    (tmp_path / "plain" / "armada.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(CliError, match=r"armada\.json: cannot read it"):
        botinfo.match_game([plain, race], None)
    assert botinfo.match_game([plain, race], "mothership") == ("mothership", None)  # --game: not needed


def test_an_armada_json_nested_past_the_parsers_depth_is_a_damaged_file(tmp_path):
    """A review of botinfo's one reader: `[[[...` made json.loads raise RecursionError, which no caller
    caught (`armada play` and `armada submit` ended in a traceback); it is told as a file it cannot read."""
    folder = tmp_path / "deep"
    folder.mkdir()
    (folder / "main.py").write_text("print(1)\n", encoding="utf-8")
    (folder / "armada.json").write_text("[" * 60000, encoding="utf-8")
    with pytest.raises(CliError, match=r"armada\.json: cannot read it \(nested too deeply"):
        botinfo.recorded_game(folder)
    assert botinfo.recorded_name(folder) is None
    assert botinfo.as_sent(b"[" * 60000) == b"[" * 60000
