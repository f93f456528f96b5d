"""`armada play`: readable and JSON output, exit codes, replays, configs, starting states."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.logmarks import strip_marks
from armada.replay import read_replay
from tests.sdk.cli.bots import CRASH_AFTER_INIT, FIXED_MOTHERSHIP, IDLE_GALAXY, without_time, write_bot

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
    assert all(set(p) == {"seat", "name", "status", "detail", "exceptions", "warnings", "time", "memory_peak_mib"}
               for p in first["players"])
    assert first["players"][1]["name"] == "Idle"
    again = run_json(capsys, "builtin:greedy", idle, "--seed", "11", "--config", SHORT)
    assert without_time(again) == without_time(first)


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


def test_a_crash_shows_its_reason_without_verbose(idle: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # issue 27: the site showed the SyntaxError, `armada play` only "exited with code 1"
    broken = write_bot(tmp_path / "broken", "import sys\nx = (\n")
    assert main(["play", str(broken), idle, "--seed", "2"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("1  broken"))
    assert "crashed" in row and "SyntaxError: '(' was never closed" in row
    assert main(["play", str(broken), idle, "--seed", "2", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["players"][0]["reason"] == "SyntaxError: '(' was never closed"
    assert "SyntaxError" in captured.err  # the log's tail, beside the JSON
    crasher = write_bot(tmp_path / "raiser", "raise RuntimeError('no config file')\n")
    assert main(["play", str(crasher), idle, "--seed", "2"]) == 0
    assert "RuntimeError: no config file" in capsys.readouterr().out.split("log of seat")[0]


CAUGHT_THEN_EXIT = """
import os

from armada.bot.galaxy import GalaxyBot
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Carol"

    def scout(self, obs):
        return []

    def command(self, obs, intel, warnings):
        if obs.turn == 3:
            return {}["missing_key"]
        if obs.turn == 6:
            os._exit(3)
        return []


run(Bot())
"""


def test_an_exception_the_library_caught_is_not_given_as_the_crash(idle: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A competitor's trial: a KeyError the library caught at turn 3 was given as the reason of an
    exit at turn 6 ("stopped before answering command (id 12, turn 6): KeyError: 'missing_key'")."""
    bot = write_bot(tmp_path / "carol", CAUGHT_THEN_EXIT)
    assert main(["play", str(bot), idle, "--seed", "5"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("1  Carol"))
    assert "exited with code 3; stopped before answering command (id 12, turn 6); first at turn 3: KeyError" in row


def test_replay_file_is_written_and_readable(idle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json.gz"
    code = main(["play", "builtin:greedy", idle, "--seed", "4", "--config", SHORT, "--replay", str(path)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"replay:  {path}" in out
    replay = read_replay(path)
    assert (replay["game"], replay["seed"]) == ("galaxy", 4)
    assert replay["config"]["max_turns"] == 12



def test_a_replay_that_cannot_be_written_keeps_the_older_one(idle: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Disk full while writing --replay: the file of an earlier match is kept whole, no part left."""
    import armada.safefile

    path = tmp_path / "m.json"
    path.write_text("an earlier match\n")
    path.chmod(0o640)

    def no_space(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(armada.safefile.os, "replace", no_space)
    assert main(["play", "builtin:greedy", idle, "--seed", "4", "--config", SHORT, "--replay", str(path)]) == 2
    assert capsys.readouterr().err.endswith(f"replay could not be written to {path}: No space left on device\n")
    assert path.read_text() == "an earlier match\n"
    assert [p.name for p in tmp_path.iterdir() if p.name != "idle"] == ["m.json"]
    monkeypatch.undo()
    assert main(["play", "builtin:greedy", idle, "--seed", "4", "--config", SHORT, "--replay", str(path)]) == 0
    assert read_replay(path)["seed"] == 4 and path.stat().st_mode & 0o777 == 0o640  # replaced, its mode kept


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
        (["builtin:greedy", "builtin:random", "--turn-ms", "999999999999999999999"], "at most 86400000"),
        (["builtin:greedy", "builtin:random", "--init-ms", "999999999999999999999"], "at most 86400000"),
        (["builtin:greedy", "builtin:random", "--config", "{not json"], "not valid JSON"),
        (["builtin:greedy", "builtin:random", "--config", "[1]"], "neither a JSON object nor a readable file"),
        (["builtin:greedy", "builtin:random", "--config", '{"max_turns": 0}'], "bad galaxy configuration: max_turns"),
        (["builtin:greedy", "builtin:random", "--config", "missing.json"], "neither a JSON object nor a readable file"),
        (["builtin:greedy"], "the following arguments are required"),
        (["builtin:greedy", "builtin:random", "--from-state", "nowhere.json"], "cannot read nowhere.json"),
        (["builtin:greedy", "builtin:random", "--from-state", "m.json.gz#turn=abc"],
         "#turn= needs a whole number (got 'abc')"),
        (["builtin:greedy", "builtin:random", "--from-state", "m.json.gz#turn=-1"],
         "#turn= needs a whole number (got '-1')"),
        (["builtin:greedy", "builtin:random", "--from-state", "m.json.gz#turn="],
         "#turn= needs a whole number (got '')"),
        (["builtin:greedy", "builtin:random", "--seed", "1", "--from-state", "m.json.gz#turn=3"],
         "--seed cannot be combined with --from-state"),
        (["builtin:greedy", "builtin:random", "--log-dir"], "expected one argument"),
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
    from_dump = run_json(capsys, idle, idle, "--from-state", str(dump), "--replay",
                         str(tmp_path / "cont.json.gz"))
    assert from_dump["turns"] == 12  # the configuration came with the state
    assert (from_dump["seed"], from_dump["from_state"]) == (8, str(dump))  # the seed the state records
    cont = read_replay(tmp_path / "cont.json.gz")
    assert cont["start_state"] == state
    assert {s["turn"] for s in cont["steps"]} == set(range(6, 13))
    from_replay = run_json(capsys, idle, idle, "--from-state", f"{path}#turn=5")
    assert without_time(from_replay) == without_time({**from_dump, "from_state": f"{path}#turn=5"})


def test_from_state_summary_shows_where_the_seed_comes_from(idle: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json.gz"
    assert main(["play", idle, idle, "--seed", "8", "--config", SHORT, "--replay", str(path), "--json"]) == 0
    capsys.readouterr()
    spec = f"{path}#turn=5"
    assert main(["play", idle, idle, "--from-state", spec]) == 0
    captured = capsys.readouterr()
    assert f"seed:    from state {spec} (seed 8)\n" in captured.out
    assert f"armada: galaxy, from state {spec} (seed 8): idle (seat 1) vs idle#2 (seat 2)" in captured.err
    # a state without a recorded seed: no number is made up
    from armada.cli.commands.play import describe
    summary = {"game": "galaxy", "seed": None, "from_state": "s.json", "turns": 3, "winner": None,
               "outcome": "turn_limit", "players": []}
    assert "seed:    from state s.json\n" in describe(summary, [], None)


def test_seed_with_from_state_is_refused(idle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json.gz"
    assert main(["play", idle, idle, "--seed", "8", "--config", SHORT, "--replay", str(path), "--json"]) == 0
    capsys.readouterr()
    assert main(["play", idle, idle, "--from-state", f"{path}#turn=5", "--seed", "3"]) == 2
    captured = capsys.readouterr()
    assert "armada: error: --seed cannot be combined with --from-state" in captured.err
    assert captured.out == ""


def test_from_state_of_a_finished_game_is_refused(idle: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json.gz"
    assert main(["play", idle, idle, "--seed", "8", "--config", SHORT, "--replay", str(path), "--json"]) == 0
    dump = tmp_path / "end.json"
    assert main(["replay", str(path), "--dump-state", "12", "--out", str(dump)]) == 0
    capsys.readouterr()
    for spec in (f"{path}#turn=12", str(dump)):
        assert main(["play", idle, idle, "--from-state", spec]) == 2
        captured = capsys.readouterr()
        assert f"--from-state: {spec}: the game is already over after turn 12 (a draw)" in captured.err
        assert captured.out == ""
    # one turn earlier is still playable
    assert run_json(capsys, idle, idle, "--from-state", f"{path}#turn=11")["turns"] == 12


def test_from_state_mothership_battle_already_fought(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from armada.games.registry import get_game

    engine = get_game("mothership")
    state = engine.initial_state(1, engine.parse_config(None))
    fighter = {"attack": 7, "defence": 5, "pattern": [2, 2, 3]}
    orders = {"mothership": {"defence": 40}, "fighters": [fighter] * 5}  # MD-9: a draw after 3 rounds
    state = engine.step(state, {1: orders, 2: orders}).state
    dump = tmp_path / "ms.json"
    dump.write_text(json.dumps(engine.dump_state(state)))
    bot = str(write_bot(tmp_path / "zil", FIXED_MOTHERSHIP))
    assert main(["play", bot, bot, "--game", "mothership", "--from-state", str(dump)]) == 2
    assert "the game is already over after turn 3 (a draw)" in capsys.readouterr().err


def test_log_dir_writes_each_seat_log(idle: str, crasher: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "out" / "logs"  # created with its parent
    assert main(["play", idle, crasher, "--seed", "2", "--log-dir", str(logs)]) == 0
    out = capsys.readouterr().out
    first, second = logs / "seat1-Idle.log", logs / "seat2-Crasher.log"
    assert sorted(p.name for p in logs.iterdir()) == [first.name, second.name]
    assert second.read_text() == "[armada] --- request 1: scout, turn 1 ---\nboom: this bot gives up\n"
    assert first.read_text() == ""
    assert f"logs:    {first}, {second}" in out
    # with --json stdout stays one JSON object; the files are named on stderr
    code = main(["play", idle, crasher, "--seed", "2", "--log-dir", str(logs), "--json"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["winner"] == 1
    assert f"bot logs written to {first}, {second}" in captured.err


def test_log_dir_keeps_more_than_verbose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chatty = IDLE_GALAXY.replace("for line in sys.stdin:",
                                 "for i in range(100):\n    print(f'line {i}', file=sys.stderr)\n"
                                 "sys.stderr.flush()\nfor line in sys.stdin:")
    bot = str(write_bot(tmp_path / "chatty", chatty))
    assert main(["play", bot, bot, "--seed", "1", "--config", SHORT, "--verbose", "--log-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "line 99" in out and "line 0\n" not in out  # --verbose: the last 20 lines only
    kept = strip_marks((tmp_path / "seat1-Idle.log").read_text())
    assert kept.splitlines() == [f"line {i}" for i in range(100)]


def test_log_dir_errors(idle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["play", idle, idle, "--log-dir", str(blocker)]) == 2
    captured = capsys.readouterr()
    assert f"--log-dir: {blocker} is not a folder" in captured.err
    assert "armada: galaxy" not in captured.err  # refused before the match


@pytest.mark.parametrize(("name", "safe"), [("Greedy", "Greedy"), ("My Bot/2", "My_Bot_2"), ("../..", "bot"),
                                            ("é", "bot"), ("x" * 60, "x" * 40)])
def test_safe_log_names(name: str, safe: str) -> None:
    from armada.cli.logfiles import safe_name

    assert safe_name(name) == safe


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
    assert main(["play", idle, idle, "--sandbox", "docker"]) == 2
    err = capsys.readouterr().err
    assert "--sandbox docker needs the armada-sandbox package" in err


def test_a_sandbox_lost_during_the_match_is_one_line_and_exit_2(idle: str, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # A connection whose start raises Unavailable (e.g. the engine went away after the checks): no traceback.
    from armada.cli.commands import play
    from armada.referee.connection import Unavailable
    from armada.referee.inprocess import InProcessBot

    class Gone(InProcessBot):
        def start(self) -> None:
            raise Unavailable("the Docker engine went away")

    monkeypatch.setattr(play, "connection", lambda source, sandbox, label: Gone(lambda request: {}, label=label))
    assert main(["play", idle, idle]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "armada: error: the Docker engine went away"


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


def test_from_state_of_a_mothership_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # MD-11: one step; turn 0 (before the orders) plays again with the same seed and config, any other turn says why not
    path = tmp_path / "ms.json.gz"
    assert main(["play", "builtin:greedy", "builtin:balanced", "--game", "mothership", "--seed", "4",
                 "--config", '{"total_points": 90}', "--replay", str(path)]) == 0
    capsys.readouterr()
    again = run_json(capsys, "builtin:random", "builtin:balanced", "--game", "mothership",
                     "--from-state", f"{path}#turn=0", "--replay", str(tmp_path / "again.json.gz"))
    assert again["seed"] == 4 and again["players"][0]["name"] == "Random Raiders"
    assert read_replay(tmp_path / "again.json.gz")["config"]["total_points"] == 90
    assert main(["play", "builtin:greedy", "builtin:balanced", "--game", "mothership",
                 "--from-state", f"{path}#turn=1"]) == 2
    err = capsys.readouterr().err
    assert "turn 1: a mothership match is one step" in err and "use turn 0 (REPLAY#turn=0, --dump-state 0)" in err
    assert main(["replay", str(path), "--dump-state", "1"]) == 2  # the same message: its own option named too
    assert "--dump-state 0" in capsys.readouterr().err


def test_two_different_bots_with_one_label_are_numbered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Not only the same spec given twice: a folder mybot and a file scripts/mybot.py are `mybot`, `mybot#2`,
    and docs/cli.md says so."""
    write_bot(tmp_path / "mybot", IDLE_GALAXY)
    write_bot(tmp_path / "scripts", IDLE_GALAXY, name="mybot.py")
    monkeypatch.chdir(tmp_path)
    assert main(["play", "mybot", "scripts/mybot.py", "--seed", "1", "--config", SHORT]) == 0
    assert "armada: galaxy, seed 1: mybot (seat 1) vs mybot#2 (seat 2)" in capsys.readouterr().err
    docs = (Path(__file__).resolve().parents[3] / "docs" / "cli.md").read_text(encoding="utf-8").replace("\n", " ")
    assert "Any two bots with the same label are numbered" in docs
    assert "`armada play mybot scripts/mybot.py` calls them `mybot` and `mybot#2`" in docs


@pytest.mark.parametrize("target", ["bot", "bot-file", "state", "config"])
def test_a_replay_is_never_written_over_a_file_the_match_reads(target: str, idle: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Before: `--replay mybot/main.py` (or the --from-state or --config file) played the match, then
    replaced that file with the replay: the bot's code was lost."""
    config = tmp_path / "short.json"
    config.write_text(SHORT)
    dump = tmp_path / "t2.state.json"
    source = tmp_path / "g.json.gz"
    assert main(["play", "builtin:greedy", idle, "--seed", "4", "--config", SHORT, "--replay", str(source)]) == 0
    assert main(["replay", str(source), "--dump-state", "2", "--out", str(dump)]) == 0
    capsys.readouterr()
    argv = {"bot": [idle, "builtin:greedy", "--config", str(config)],
            "bot-file": [str(Path(idle) / "main.py"), "builtin:greedy", "--config", str(config)],
            "state": [idle, "builtin:greedy", "--from-state", str(dump)],
            "config": [idle, "builtin:greedy", "--config", str(config)]}[target]
    out = {"bot": Path(idle) / "main.py", "bot-file": Path(idle) / "main.py", "state": dump, "config": config}[target]
    kept = out.read_bytes()
    assert main(["play", *argv, "--replay", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"armada: error: --replay: {out} is ") and captured.err.count("\n") == 1, \
        captured.err
    assert "armada: galaxy" not in captured.err  # refused before the match
    assert out.read_bytes() == kept


@pytest.mark.parametrize("chosen", ["", "armada/bot:mine"])
def test_sandbox_docker_names_the_image_it_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                chosen: str) -> None:
    """A competitor's trial: a re-run in Docker on a machine of two checkouts said nothing of which
    image ran (armada/bot:latest may be the other checkout's). Faked engine: the line alone."""
    import armada_sandbox
    from armada.cli.common import docker_preflight

    monkeypatch.setattr(armada_sandbox, "check_ready", lambda on_stale=None: None)
    monkeypatch.setattr(armada_sandbox, "BOT_IMAGE", chosen or "armada/bot:latest")
    monkeypatch.setenv("ARMADA_BOT_IMAGE", chosen)
    docker_preflight()
    assert capsys.readouterr().err == ("armada: bots run in Docker image armada/bot:mine (ARMADA_BOT_IMAGE)\n"
                                       if chosen else "armada: bots run in Docker image armada/bot:latest "
                                       "(ARMADA_BOT_IMAGE names another)\n")
