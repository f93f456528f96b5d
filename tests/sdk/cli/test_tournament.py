"""`armada tournament`: schedule, standings, and a tiny real run in worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.cli.commands.tournament import Standings, render, schedule
from armada.cli.main import main
from tests.sdk.cli.bots import CRASH_AFTER_INIT, IDLE_GALAXY, write_bot


def test_schedule_swaps_sides_and_pairs_seeds() -> None:
    games = schedule(["a", "b", "c"], 3, seed=10)
    assert games[:3] == [("a", "b", 10), ("b", "a", 10), ("a", "b", 11)]
    assert len(games) == 9
    assert {(x, y) for x, y, _ in games} >= {("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")}


def summary(winner: int | None, s1: str = "ok", s2: str = "ok") -> dict:
    return {"winner": winner, "players": [{"seat": 1, "status": s1}, {"seat": 2, "status": s2}]}


def test_standings_count_per_pair_and_bot() -> None:
    st = Standings(["a", "b"])
    st.add(("a", "b"), summary(1))
    st.add(("b", "a"), summary(1))  # b wins from seat 1
    st.add(("b", "a"), summary(2, s1="timeout"))  # a wins, b timed out
    st.add(("a", "b"), summary(None))
    data = st.to_dict()
    assert data["pairs"] == [{"a": "a", "b": "b", "a_wins": 2, "draws": 1, "b_wins": 1}]
    bots = {b["name"]: b for b in data["bots"]}
    assert (bots["a"]["wins"], bots["a"]["draws"], bots["a"]["losses"]) == (2, 1, 1)
    assert (bots["b"]["wins"], bots["b"]["draws"], bots["b"]["losses"]) == (1, 1, 2)
    assert bots["b"]["faults"] == {"timeout": 1} and bots["a"]["faults"] == {}
    assert bots["a"]["score"] > bots["b"]["score"]
    assert bots["a"]["score"] == pytest.approx(bots["a"]["mu"] - 3 * bots["a"]["sigma"])
    assert bots["a"]["provisional"] and bots["b"]["provisional"]
    assert data["bots"][0]["name"] == "a"
    text = render(st)
    assert "timeout 1" in text and "A wins" in text and "score" in text and "P: provisional" in text


def test_games_are_rated_in_schedule_order_whatever_order_they_finish() -> None:
    results = [(0, ("a", "b"), summary(1)), (1, ("b", "a"), summary(1)), (2, ("a", "b"), summary(None)),
               (3, ("b", "a"), summary(2, s1="crashed"))]
    in_order, shuffled = Standings(["a", "b"]), Standings(["a", "b"])
    for index, seats, result in results:
        in_order.add(seats, result, index)
    for index, seats, result in reversed(results):
        shuffled.add(seats, result, index)
    assert in_order.to_dict()["bots"] == shuffled.to_dict()["bots"]
    other = Standings(["a", "b"])
    for index, (_i, seats, result) in enumerate(reversed(results)):
        other.add(seats, result, index)  # the same games in another order: another (sequential) rating
    assert other.to_dict()["bots"][0]["mu"] != in_order.to_dict()["bots"][0]["mu"]


def test_a_bot_with_no_games_keeps_the_ladders_start() -> None:
    bots = {b["name"]: b for b in Standings(["a", "b"]).to_dict()["bots"]}
    assert (bots["a"]["mu"], bots["a"]["sigma"]) == (25.0, 25.0 / 3)
    assert bots["a"]["score"] == pytest.approx(0.0)


def test_tiny_tournament_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    idle = str(write_bot(tmp_path / "idle", IDLE_GALAXY))
    code = main(["tournament", "builtin:greedy", idle, "-n", "2", "--jobs", "2", "--seed", "3",
                 "--config", '{"max_turns": 15}', "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    assert (data["game"], data["seed"], data["games_per_pair"]) == ("galaxy", 3, 2)
    assert data["pairs"] == [{"a": "builtin:greedy", "b": "idle", "a_wins": 2, "draws": 0, "b_wins": 0}]
    assert [b["name"] for b in data["bots"]] == ["builtin:greedy", "idle"]
    assert data["bots"][0]["score"] > 0 > data["bots"][1]["score"]
    assert data["errors"] == []
    assert "2/2 games" in captured.err  # the progress bar (plain lines: stderr is not a terminal)


def test_tiny_tournament_table_counts_faults(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    idle = str(write_bot(tmp_path / "idle", IDLE_GALAXY))
    crasher = str(write_bot(tmp_path / "crasher", CRASH_AFTER_INIT))
    code = main(["tournament", idle, crasher, "-n", "2", "--jobs", "2", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "game: galaxy   seed: 1   games per pair: 2" in out
    pair_line = next(line for line in out.splitlines() if line.startswith("idle ") and "crasher" in line)
    assert pair_line.split()[2:] == ["2", "0", "0"]
    crasher_line = next(line for line in out.splitlines() if line.split()[:2] == ["2", "crasher"])
    assert "crashed 2" in crasher_line


@pytest.mark.parametrize(("argv", "message"), [
    (["tournament", "builtin:greedy"], "at least two bots"),
    (["tournament", "builtin:greedy", "builtin:random", "-n", "0"], "at least 1"),
    (["tournament", "builtin:greedy", "builtin:random", "--turn-ms", "999999999999999999999"], "at most 86400000"),
    (["tournament", "builtin:greedy", "builtin:random", "-n", "999999999999"], "at most 100000 games"),
    (["tournament", "builtin:greedy", "builtin:random", "-n", "4", "--seed", "9223372036854775807"],
     "the seeds of this tournament go up to 9223372036854775808"),
    (["league", "builtin:greedy", "builtin:random", "--turn-ms", "999999999999999999999"], "at most 86400000"),
    (["tournament", "builtin:greedy", "missing/"], "no such file or folder"),
])
def test_tournament_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_replay_and_log_dirs_and_the_per_game_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from armada.replay import read_replay
    from tests.sdk.cli.bots import CLUMSY_GALAXY

    clumsy = str(write_bot(tmp_path / "clumsy", CLUMSY_GALAXY))
    code = main(["tournament", "builtin:greedy", clumsy, "-n", "2", "--jobs", "2", "--seed", "4",
                 "--config", '{"max_turns": 5}', "--replay-dir", str(tmp_path / "rd"),
                 "--log-dir", str(tmp_path / "ld"), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    games = data["games"]
    assert [(g["game"], g["seed"], g["seat1"]) for g in games] == [(0, 4, "builtin:greedy"), (1, 4, "clumsy")]
    names = ["builtin_greedy-vs-clumsy-game0-seed4", "builtin_greedy-vs-clumsy-game1-seed4"]
    assert [Path(g["replay"]).name for g in games] == [f"{n}.json.gz" for n in names]
    assert sorted(p.name for p in (tmp_path / "ld").iterdir()) == names
    second = read_replay(games[1]["replay"])
    assert (second["seed"], second["seats"][0]["name"]) == (4, "Clumsy")  # game 1: clumsy in seat 1
    assert sorted(Path(p).name for p in games[1]["logs"]) == ["seat1-Clumsy.log", "seat2-Greedy.log"]
    assert "thinking about turn 5" in Path(games[1]["logs"][0]).read_text()
    assert games[0]["exceptions"] == [0, 3] and games[1]["exceptions"] == [3, 0]  # scout of turns 3..5
    assert {b["name"]: b["exceptions"] for b in data["bots"]} == {"builtin:greedy": 0, "clumsy": 6}
    code = main(["tournament", "builtin:greedy", clumsy, "-n", "2", "--jobs", "2", "--seed", "4",
                 "--config", '{"max_turns": 5}'])
    text = capsys.readouterr().out
    assert "game  seed  seat 1" in text and "ok/ok     0/3" in text


def test_a_replay_dir_that_is_a_file_is_named_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: `--replay-dir FILE` said `--log-dir: FILE is not a folder`, the option not given."""
    taken = tmp_path / "notes.txt"
    taken.write_text("mine\n")
    assert main(["tournament", "builtin:greedy", "builtin:random", "-n", "1", "--replay-dir", str(taken)]) == 2
    assert capsys.readouterr().err == f"armada: error: --replay-dir: {taken} is not a folder\n"
    assert taken.read_text() == "mine\n"


def test_bots_whose_file_names_would_match_write_files_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A trial: a folder named builtin_greedy beside builtin:greedy made one file name of both, and
    one game's replay overwrote the other's; each bot's games are kept apart now."""
    monkeypatch.chdir(tmp_path)
    write_bot(tmp_path / "builtin_greedy", IDLE_GALAXY)
    code = main(["tournament", "builtin_greedy", "builtin:greedy", "builtin:random", "-n", "2", "--seed", "1",
                 "--config", '{"max_turns": 3}', "--replay-dir", "out", "--json"])
    assert code == 0, capsys.readouterr().err
    replays = sorted(p.name for p in (tmp_path / "out").glob("*.json.gz"))
    assert len(replays) == 6 and len(set(replays)) == 6  # three pairings of two games, each its own file
    assert "builtin_greedy-vs-builtin_greedy-2-game0-seed1.json.gz" in replays


def test_a_stopped_worker_closes_its_games_bots(tmp_path: Path) -> None:
    """A trial: Ctrl-C on `armada tournament --jobs 2` hung, and a second one left the workers and their
    bots running. The main process stops its workers (TERM), each closing its game's bots first."""
    import contextlib
    import os
    import signal
    import subprocess
    import sys
    import time

    hang = write_bot(tmp_path / "hang", "import time\ntime.sleep(600)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([sys.executable, "-m", "armada.cli.main", "tournament", str(hang), "builtin:random",
                             "builtin:greedy", "-n", "4", "--jobs", "2", "--seed", "1"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_default_interrupt)  # (a suite started in the background ignores INT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _bots_of(hang):
            time.sleep(0.1)
        assert _bots_of(hang), "no game started"
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends: the whole group
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and b"armada: interrupted" in err and b"Traceback" not in err, err
        time.sleep(0.5)
        assert _bots_of(hang) == []
    finally:  # (whatever happened: nothing of this test keeps running)
        for pid in [proc.pid, *map(int, _bots_of(hang))]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


def _bots_of(folder: Path) -> list[str]:
    """The processes running `folder`'s main.py."""
    import subprocess

    found = subprocess.run(["pgrep", "-f", str(folder / "main.py")], capture_output=True, text=True)
    return found.stdout.split()


def _default_interrupt() -> None:
    """In the child before it runs: INT as a terminal gives it, even when this process ignores it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
