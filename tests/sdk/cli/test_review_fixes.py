"""Fixes from a review of the CLI: unique labels, outputs that would replace a bot's files, options
a replay mode does not use, a Mothership state of the other game, a zip's armada.json named in
messages, and a reader that stops reading stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from armada.botspec import BotSource
from armada.cli.common import unique_labels
from armada.cli.main import main
from tests.sdk.cli.bots import IDLE_GALAXY, write_bot

# --- 1. labels ---------------------------------------------------------------------------------


def sources(*labels: str) -> list[BotSource]:
    return [BotSource("/nowhere", "main.py", label) for label in labels]


@pytest.mark.parametrize(("given", "expected"), [
    (["mybot", "mybot", "mybot#2"], ["mybot", "mybot#3", "mybot#2"]),
    (["mybot#2", "mybot", "mybot"], ["mybot#2", "mybot", "mybot#3"]),
    (["a", "a", "a#2", "a#2", "a#3"], ["a", "a#4", "a#2", "a#2#2", "a#3"]),
    (["greedy", "greedy", "greedy"], ["greedy", "greedy#2", "greedy#3"]),
])
def test_numbering_skips_a_label_a_bot_already_has(given: list[str], expected: list[str]) -> None:
    """A folder named `mybot#2` beside two `mybot` bots was shown twice as `mybot#2`, its results merged."""
    labels = unique_labels(sources(*given))
    assert labels == expected
    assert len(set(labels)) == len(labels)


def test_a_tournament_keeps_a_bot_named_like_a_numbered_one_apart(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for folder in ("mybot", "x/mybot", "mybot#2"):
        write_bot(tmp_path / folder, IDLE_GALAXY)
    specs = [str(tmp_path / f) for f in ("mybot", "x/mybot", "mybot#2")]
    assert main(["tournament", *specs, "-n", "1", "--seed", "1", "--config", '{"max_turns": 3}', "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(b["name"] for b in data["bots"]) == ["mybot", "mybot#2", "mybot#3"]
    assert len(data["pairs"]) == 3


# --- 2. outputs that would replace a bot's files ------------------------------------------------


@pytest.mark.parametrize(("out", "message"), [
    ("bot/main.py", "is in a bot's folder ("),
    ("bot/state.json", "is in a bot's folder ("),
    ("infobot/state.json", "holds armada.json"),
    ("helper.py", "is a Python file"),
])
def test_dump_state_refuses_a_bots_code_or_folder(galaxy_replay: Path, tmp_path: Path, out: str, message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`--dump-state N --out mybot/main.py` replaced the bot's code with a state dump (exit 0)."""
    write_bot(tmp_path / "bot", IDLE_GALAXY)
    (tmp_path / "infobot").mkdir()
    (tmp_path / "infobot" / "armada.json").write_text('{"game": "galaxy"}', encoding="utf-8")
    target = tmp_path / out
    assert main(["replay", str(galaxy_replay), "--dump-state", "2", "--out", str(target)]) == 2
    assert message in capsys.readouterr().err
    assert (tmp_path / "bot" / "main.py").read_text(encoding="utf-8") == IDLE_GALAXY.lstrip()
    assert not target.exists() or target.name == "main.py"


def test_dump_state_beside_a_replay_in_a_bot_folder_is_still_written(galaxy_replay: Path, tmp_path: Path) -> None:
    """The refusal is for an --out given: the default file is named after the replay."""
    bot = write_bot(tmp_path / "bot", IDLE_GALAXY)
    replay = bot / "g.json.gz"
    replay.write_bytes(galaxy_replay.read_bytes())
    assert main(["replay", str(replay), "--dump-state", "2"]) == 0
    assert (bot / "g-turn2.state.json").is_file()


@pytest.mark.parametrize("spec", ["bot", "bot/main.py"])
def test_play_replay_refuses_the_armada_json_of_a_bot(tmp_path: Path, spec: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`armada play mybot ... --replay mybot/armada.json` replaced the file that names the bot's game."""
    bot = write_bot(tmp_path / "bot", IDLE_GALAXY)
    info = bot / "armada.json"
    info.write_text('{"game": "galaxy"}\n', encoding="utf-8")
    assert main(["play", str(tmp_path / spec), "builtin:greedy", "--seed", "1", "--replay", str(info)]) == 2
    assert "is the armada.json of the bot in seat 1" in capsys.readouterr().err
    assert info.read_text(encoding="utf-8") == '{"game": "galaxy"}\n'


# --- 3. options a replay mode does not use -----------------------------------------------------


@pytest.mark.parametrize(("extra", "message"), [
    (["--sandbox", "process"], "--sandbox only goes with --rerun"),
    (["--requests", "1", "--sandbox", "process"], "--requests takes no other option; drop --sandbox"),
    (["--dump-state", "3", "--out", "s.json", "--sandbox", "process"], "--dump-state takes --out; drop --sandbox"),
    (["--log-dir", ""], "--log-dir goes with --turn N"),
])
def test_an_option_given_with_its_default_value_is_still_refused(
        galaxy_replay: Path, extra: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--sandbox process` (the default) was taken as not given, and silently ignored (exit 0)."""
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(galaxy_replay), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err
    assert not (tmp_path / "s.json").exists()


def test_events_with_turn_lists_that_turns_events_only(galaxy_replay: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`--turn 3 --events` listed the whole game's events, dropping --turn silently."""
    assert main(["replay", str(galaxy_replay), "--events", "--json"]) == 0
    every = json.loads(capsys.readouterr().out)["events"]
    assert {e["turn"] for e in every} != {3}
    assert main(["replay", str(galaxy_replay), "--turn", "3", "--events", "--json"]) == 0
    events = json.loads(capsys.readouterr().out)["events"]
    assert events == [e for e in every if e["turn"] == 3] and events
    assert main(["replay", str(galaxy_replay), "--turn", "3", "--events"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"events of turn 3 ({len(events)}):") and "game:" not in out


def test_events_with_a_turn_the_replay_lacks_is_an_error(galaxy_replay: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(galaxy_replay), "--turn", "99", "--events"]) == 2
    assert "--turn 99: not in this replay" in capsys.readouterr().err


# --- 4. messages --------------------------------------------------------------------------------


def test_a_mothership_state_played_as_galaxy_says_add_game_mothership(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A Mothership dump has no `format` field: it said `bad galaxy state: galaxy state: format is missing`."""
    replay, state = tmp_path / "ms.json.gz", tmp_path / "ms0.json"
    assert main(["play", "builtin:greedy", "builtin:random", "--game", "mothership", "--seed", "1",
                 "--replay", str(replay), "--json"]) == 0
    assert main(["replay", str(replay), "--dump-state", "0", "--out", str(state)]) == 0
    capsys.readouterr()
    assert main(["play", "builtin:greedy", "builtin:random", "--from-state", str(state)]) == 2
    assert (f"--from-state: {state} holds a mothership state, not a galaxy one; add --game mothership"
            in capsys.readouterr().err)


@pytest.mark.parametrize(("inner", "info", "said"), [
    ("", "{bad", "bad.zip: armada.json: cannot read it"),
    ("inner/", '{"game": 3}', 'bad.zip: inner/armada.json: "game" must be one of'),
])
def test_a_bad_armada_json_in_a_zip_names_the_zip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inner: str,
                                                  info: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The message named the zip's temporary copy (`/tmp/armada-bot-xxxx/armada.json`)."""
    monkeypatch.chdir(tmp_path)
    with zipfile.ZipFile("bad.zip", "w") as archive:
        archive.writestr(f"{inner}main.py", IDLE_GALAXY)
        archive.writestr(f"{inner}armada.json", info)
    assert main(["play", "bad.zip", "builtin:greedy", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert said in err and "armada-bot-" not in err


@pytest.mark.parametrize("unbuffered", [True, False])
@pytest.mark.parametrize("argv", [["docs", "cli"], ["replay", "REPLAY", "--events"],
                                  ["play", "builtin:greedy", "builtin:random", "--config", '{"max_turns": 3}']])
def test_a_reader_that_stops_reading_leaves_exit_status_0(galaxy_replay: Path, argv: list[str],
                                                          unbuffered: bool) -> None:
    """`armada play ... | head -1` exited 1 (or 120, with `Exception ignored ... BrokenPipeError`)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    args = [str(galaxy_replay) if a == "REPLAY" else a for a in argv]
    proc = subprocess.Popen([sys.executable, "-m", "armada.cli.main", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader is gone before anything is written
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert b"BrokenPipe" not in err and b"Traceback" not in err
