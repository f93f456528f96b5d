"""`armada replay --turn N / --events`: a turn's battles, captures, launches, probes, warnings and log lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.narration import replay_events, warning_counts
from armada.replay import read_replay
from tests.sdk.cli.bots import CLUMSY_GALAXY, write_bot


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ev")
    clumsy = str(write_bot(folder / "clumsy", CLUMSY_GALAXY))
    assert main(["play", clumsy, "builtin:prober", "--seed", "3", "--config", '{"max_turns": 8}',
                 "--replay", str(folder / "g.json.gz"), "--log-dir", str(folder / "logs"), "--json"]) == 0
    return folder


def replay_out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(["replay", *argv]) == 0
    return capsys.readouterr().out


def test_turn_lists_that_turns_events(match: Path, capsys) -> None:
    out = replay_out(capsys, str(match / "g.json.gz"), "--turn", "2")
    assert "board after turn 2" in out
    section = out.split("events of turn 2", 1)[1]
    assert "seat 2 probes planet " in section  # probes with their intel (GX-9)
    assert "seat 1 (scout): probe target 1 dropped: it is your own planet" in section  # GX-8
    assert "seat 1 (command): fleet order 1 dropped: planet 8 is not yours" in section  # GX-10
    replay = read_replay(match / "g.json.gz")
    battles = [e for e in replay_events(replay) if e.kind == "battle"]
    assert battles, "the prober attacks within 8 turns"
    first = battles[0]
    out = replay_out(capsys, str(match / "g.json.gz"), "--turn", str(first.turn))
    assert first.text in out
    assert "attacker seat 2" in first.text and "defender neutral" in first.text and " -> " in first.text


def test_events_of_the_whole_game_filtered(match: Path, capsys) -> None:
    path = str(match / "g.json.gz")
    data = json.loads(replay_out(capsys, path, "--events", "--json"))["events"]
    assert {e["kind"] for e in data} >= {"probe", "warning", "launch", "battle", "capture", "game_over"}
    assert [e["turn"] for e in data] == sorted(e["turn"] for e in data)
    mine = json.loads(replay_out(capsys, path, "--events", "--seat", "1", "--kind", "warning", "--json"))["events"]
    assert mine and all(e["kind"] == "warning" and e["seats"] == [1] for e in mine)
    assert len(mine) == warning_counts(read_replay(path))[1][0]
    text = replay_out(capsys, path, "--events", "--kind", "launch")
    assert text.startswith("events (") and "launches fleet #" in text and "probes planet" not in text


def test_log_lines_of_the_turn(match: Path, capsys) -> None:
    out = replay_out(capsys, str(match / "g.json.gz"), "--turn", "3", "--log-dir", str(match / "logs"))
    section = out.split("log of seat 1 (Clumsy) in turn 3", 1)[1].split("log of seat 2", 1)[0]
    assert "thinking about turn 3" in section and "thinking about turn 2" not in section
    assert "ZeroDivisionError" in section


def test_log_lines_of_the_turn_in_json_too(match: Path, capsys) -> None:
    path, logs = str(match / "g.json.gz"), str(match / "logs")
    for extra in ((), ("--events",)):
        data = json.loads(replay_out(capsys, path, "--turn", "3", "--log-dir", logs, *extra, "--json"))
        assert [(log["seat"], log["name"]) for log in data["logs"]] == [(1, "Clumsy"), (2, "Prober")]
        mine = "\n".join(data["logs"][0]["lines"])
        assert "thinking about turn 3" in mine and "thinking about turn 2" not in mine
        assert ("events" in data) == bool(extra) and ("frame" in data) != bool(extra)
    only = json.loads(replay_out(capsys, path, "--turn", "3", "--log-dir", logs, "--seat", "2", "--events", "--json"))
    assert [log["seat"] for log in only["logs"]] == [2]
    assert "logs" not in json.loads(replay_out(capsys, path, "--turn", "3", "--json"))


def test_option_errors(match: Path, capsys) -> None:
    path = str(match / "g.json.gz")
    assert main(["replay", path, "--log-dir", str(match / "logs")]) == 2
    assert "--log-dir goes with --turn N" in capsys.readouterr().err
    assert main(["replay", path, "--turn", "2", "--log-dir", str(match)]) == 2
    assert "no seat1-*.log" in capsys.readouterr().err


def test_results_name_the_bots(match: Path, tmp_path: Path, capsys) -> None:
    replay = read_replay(match / "g.json.gz")
    (over,) = [e for e in replay_events(replay) if e.kind == "game_over"]
    winner = replay["result"]["winner"]
    name = {p["seat"]: p["name"] for p in replay["seats"]}[winner]
    assert over.text == f"game over: seat {winner} ({name}) wins by turn_limit after 8 turns"
    wrong_shape = write_bot(tmp_path / "shape", """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    reply = {"name": "Shapeless"} if msg["type"] == "init" else {"probes": None}  # GX-22: the wrong shape
    print(json.dumps({"id": msg["id"], **reply}), flush=True)
""")
    replay_file = str(tmp_path / "c.json.gz")
    assert main(["play", "builtin:greedy", str(wrong_shape), "--seed", "1", "--replay", replay_file]) == 0
    events = replay_events(read_replay(replay_file))
    fault = next(e.text for e in events if e.kind == "fault")
    assert fault.startswith("seat 2 (Shapeless) disqualified (protocol): ")
    assert events[-1].text == "game over: seat 1 (Greedy) wins by forfeit after 0 turns"


def test_mothership_output_says_rounds(tmp_path: Path, capsys) -> None:
    path = str(tmp_path / "ms.json.gz")
    assert main(["play", "builtin:greedy", "builtin:balanced", "--game", "mothership", "--seed", "1",
                 "--replay", path]) == 0
    played = capsys.readouterr().out
    assert "\nrounds:  3\n" in played and "turns" not in played
    described = replay_out(capsys, path)
    assert "\nrounds:  3\n" in described and "\nturns:" not in described
    assert main(["tournament", "builtin:greedy", "builtin:balanced", "--game", "mothership", "-n", "2",
                 "--seed", "1", "--jobs", "1"]) == 0
    printed = capsys.readouterr().out
    assert "rated as on the ladder" not in printed and "`armada league BOT...` shows that table" in printed
    header = next(line for line in printed.splitlines() if line.startswith("game  seed"))
    assert header.split() == ["game", "seed", "seat", "1", "seat", "2", "winner", "by", "rounds", "statuses",
                              "exceptions"]


def test_a_shot_that_sinks_the_mothership_is_no_fighter_destroyed() -> None:
    """A competitor's trial: round 2's five shots all hit the mothership and the last sank it; the
    round said "5 shots, 1 fighters destroyed, 5 on the mothership" (MD seed 3, race vs balanced)."""
    shots = [{"fighter": n, "target": "mothership", "strength": 4, "destroyed": n == 2} for n in range(5)]
    sides = [{"seat": 1, "shots": shots, "fighters": [{"defence": 3}], "mothership": 0},
             {"seat": 2, "shots": [{"fighter": 0, "target": 1, "strength": 2, "destroyed": True}],
              "fighters": [{"defence": 1}, {"defence": 0}], "mothership": 12}]
    replay = {"game": "mothership", "seats": [], "steps": [{"turn": 1, "events": [{"round": 2, "sides": sides}]}]}
    [event] = [e for e in replay_events(replay) if e.kind == "round"]
    assert "seat 1: 5 shots, 0 fighters destroyed, 5 on the enemy mothership (destroyed); own mothership 0" \
        in event.text
    assert "1 fighter left" in event.text and "seat 2: 1 shot, 1 fighter destroyed" in event.text
    assert "seat 2: 1 shot, 1 fighter destroyed, 0 on the enemy mothership; own mothership 12" in event.text
