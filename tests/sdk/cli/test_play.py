"""`armada play`: readable and JSON output, exit codes, replays, configs, starting states."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.replay import read_replay
from tests.sdk.cli.bots import CRASH_AFTER_INIT, FIXED_MOTHERSHIP, IDLE_GALAXY, write_bot

SHORT = '{"max_turns": 12}'


@pytest.fixture
def idle(tmp_path: Path) -> str:
    return str(write_bot(tmp_path / "idle", IDLE_GALAXY))


@pytest.fixture
def crasher(tmp_path: Path) -> str:
    return str(write_bot(tmp_path / "crasher", CRASH_AFTER_INIT))


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main(["play", *argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_human_summary(idle: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "builtin:greedy", idle, "--seed", "3", "--config", SHORT])
    captured = capsys.readouterr()
    assert code == 0
    out = captured.out
    assert "game:    galaxy" in out
    assert "seed:    3" in out
    assert "winner:  seat 1, Greedy, by " in out
    assert "Idle (idle)" in out and "Greedy (builtin:greedy)" in out
    assert "replay:  not saved" in out
    assert "seed 3" in captured.err


def test_json_summary_shape_and_determinism(idle: str, capsys: pytest.CaptureFixture[str]) -> None:
    first = run_json(capsys, "builtin:greedy", idle, "--seed", "11", "--config", SHORT)
    assert set(first) == {"game", "seed", "turns", "winner", "outcome", "players"}
    assert (first["game"], first["seed"]) == ("galaxy", 11)
    assert first["winner"] == 1
    assert [p["seat"] for p in first["players"]] == [1, 2]
    assert all(set(p) == {"seat", "name", "status", "detail"} for p in first["players"])
    assert first["players"][1]["name"] == "Idle"
    assert run_json(capsys, "builtin:greedy", idle, "--seed", "11", "--config", SHORT) == first


def test_idle_draw_runs_to_turn_limit(idle: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(capsys, idle, idle, "--seed", "1", "--config", SHORT)
    assert result["winner"] is None
    assert result["turns"] == 12
    assert [p["name"] for p in result["players"]] == ["Idle", "Idle"]


def test_random_seed_is_reported(idle: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", idle, idle, "--config", SHORT, "--json"])
    captured = capsys.readouterr()
    assert code == 0
    seed = json.loads(captured.out)["seed"]
    assert isinstance(seed, int) and seed >= 0
    assert f"seed {seed}:" in captured.err


def test_crashing_bot_forfeits_exit_zero(idle: str, crasher: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(capsys, crasher, idle, "--seed", "2")
    assert result["winner"] == 2
    assert result["outcome"] == "forfeit"
    status = {p["seat"]: p["status"] for p in result["players"]}
    assert status == {1: "crashed", 2: "ok"}


def test_verbose_shows_the_log_tail(idle: str, crasher: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", idle, crasher, "--seed", "2", "--verbose"])
    out = capsys.readouterr().out
    assert code == 0
    assert "winner:  seat 1, Idle, by forfeit" in out
    assert "crashed" in out
    assert "log of seat 2 (Crasher)" in out
    assert "    boom: this bot gives up" in out


def test_replay_file_is_written_and_readable(idle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json.gz"
    code = main(["play", "builtin:greedy", idle, "--seed", "4", "--config", SHORT, "--replay", str(path)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"replay:  {path}" in out
    replay = read_replay(path)
    assert (replay["game"], replay["seed"]) == ("galaxy", 4)
    assert replay["config"]["max_turns"] == 12


def test_mothership(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = str(write_bot(tmp_path / "zil", FIXED_MOTHERSHIP))
    result = run_json(capsys, bot, bot, "--game", "mothership", "--seed", "1")
    # MD-9: the Ziltoidians against themselves draw after 3 rounds.
    assert (result["game"], result["winner"], result["outcome"], result["turns"]) == ("mothership", None, "draw", 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope/main.py", "builtin:greedy"], "no such file or folder"),
        (["builtin:greedy", "builtin:nope"], "available: builtin:"),
        (["builtin:greedy", "builtin:random", "--game", "chess"], "invalid choice: 'chess'"),
        (["builtin:greedy", "builtin:random", "--seed", "abc"], "seed must be a whole number"),
        (["builtin:greedy", "builtin:random", "--seed", "-5"], "seed must be between 0"),
        (["builtin:greedy", "builtin:random", "--turn-ms", "0"], "at least 1"),
        (["builtin:greedy", "builtin:random", "--config", "{not json"], "not valid JSON"),
        (["builtin:greedy", "builtin:random", "--config", "[1]"], "neither a JSON object nor a readable file"),
        (["builtin:greedy", "builtin:random", "--config", '{"max_turns": 0}'], "bad galaxy configuration: max_turns"),
        (["builtin:greedy", "builtin:random", "--config", "missing.json"], "neither a JSON object nor a readable file"),
        (["builtin:greedy"], "the following arguments are required"),
        (["builtin:greedy", "builtin:random", "--from-state", "nowhere.json"], "cannot read nowhere.json"),
        (["builtin:greedy", "builtin:random", "--replay", "no/such/dir/m.json.gz"], "does not exist"),
    ],
)
def test_usage_and_input_errors_exit_2(argv: list[str], message: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code = main(["play", *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert message in captured.err
    assert captured.out == ""


def test_config_from_file(idle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = tmp_path / "conf.json"
    conf.write_text('{"max_turns": 5}')
    result = run_json(capsys, idle, idle, "--seed", "1", "--config", str(conf))
    assert result["turns"] == 5


def test_from_state_dump_and_replay_turn(idle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json.gz"
    assert main(["play", idle, idle, "--seed", "8", "--config", SHORT, "--replay", str(path), "--json"]) == 0
    dump = tmp_path / "t5.json"
    assert main(["replay", str(path), "--dump-state", "5", "--out", str(dump)]) == 0
    capsys.readouterr()
    state = json.loads(dump.read_text())
    assert state["turn"] == 6  # after 5 turns, turn 6 is next
    from_dump = run_json(capsys, idle, idle, "--seed", "8", "--from-state", str(dump), "--replay",
                         str(tmp_path / "cont.json.gz"))
    assert from_dump["turns"] == 12  # the configuration came with the state
    cont = read_replay(tmp_path / "cont.json.gz")
    assert cont["start_state"] == state
    assert {s["turn"] for s in cont["steps"]} == set(range(6, 13))
    from_replay = run_json(capsys, idle, idle, "--seed", "8", "--from-state", f"{path}#turn=5")
    assert from_replay == from_dump


def test_from_state_errors(idle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json.gz"
    assert main(["play", idle, idle, "--seed", "8", "--config", SHORT, "--replay", str(path), "--json"]) == 0
    garbage = tmp_path / "bad.json"
    garbage.write_text('{"format": "galaxy-state", "turn": "x"}')
    cases = [
        (["--from-state", str(garbage)], "bad galaxy state"),
        (["--from-state", str(path)], "say which turn"),
        (["--from-state", f"{path}#turn=40"], "turn 40 is not in this replay: it has turns 0..12"),
        (["--from-state", f"{path}#turn=3", "--game", "mothership"], "is a galaxy replay; add --game galaxy"),
        (["--from-state", f"{path}#turn=3", "--config", SHORT], "cannot be combined"),
    ]
    capsys.readouterr()
    for extra, message in cases:
        assert main(["play", idle, idle, *extra]) == 2, extra
        assert message in capsys.readouterr().err


def test_docker_sandbox_missing_is_a_clear_error(idle: str, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Hide the sandbox package: the command must say what is missing and exit 2 without playing.
    monkeypatch.setitem(sys.modules, "armada_sandbox", None)
    monkeypatch.setitem(sys.modules, "armada_sandbox.docker_bot", None)
    assert main(["play", idle, idle, "--sandbox", "docker"]) == 2
    err = capsys.readouterr().err
    assert "--sandbox docker needs the armada-sandbox package" in err


def test_installed_script(idle: str) -> None:
    script = Path(sys.executable).parent / "armada"
    assert script.exists(), "the armada console script is not installed in this environment"
    done = subprocess.run([str(script), "play", "builtin:greedy", idle, "--seed", "5", "--config", SHORT,
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["seed"] == 5
    bad = subprocess.run([str(script), "play", "builtin:greedy", "missing/"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2
    assert "armada: error: missing/: no such file or folder" in bad.stderr
    version = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("armada ")
