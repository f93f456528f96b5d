"""What `armada play` tells about each seat: caught exceptions, dropped orders and probes (GX-8,
GX-10), time used, the log tail of a bot that failed, the init and timeout details."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.logmarks import lines_by_turn
from tests.sdk.cli.bots import CLUMSY_GALAXY, NO_FLUSH, SYNTAX_ERROR, write_bot

SHORT = '{"max_turns": 6}'


def play(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["play", *argv]) == 0
    return capsys.readouterr().out


def test_caught_exceptions_and_dropped_orders_are_counted(tmp_path: Path, capsys) -> None:
    clumsy = str(write_bot(tmp_path / "clumsy", CLUMSY_GALAXY))
    out = play(capsys, clumsy, "builtin:random", "--seed", "1", "--config", SHORT, "--json")
    seat = json.loads(out)["players"][0]
    assert seat["status"] == "ok"  # the library skipped the turns; the bot was never disqualified
    assert seat["exceptions"]["count"] == 4  # scout of turns 3..6
    assert seat["exceptions"]["first"] == "at turn 3: ZeroDivisionError: integer division or modulo by zero"
    assert seat["warnings"]["count"] == 2 + 6  # 2 probes of turns 1-2 (GX-8), one order per turn (GX-10)
    assert seat["warnings"]["first"] == "at turn 1: probe target 1 dropped: it is your own planet"
    text = play(capsys, clumsy, "builtin:random", "--seed", "1", "--config", SHORT)
    assert ("ok, 4 exceptions caught  first at turn 3: ZeroDivisionError: integer division or modulo by zero"
            in text)
    assert "dropped: seat 1: 8 orders or probe targets (first at turn 1: probe target 1 dropped:" in text


def test_time_used_per_seat(tmp_path: Path, capsys) -> None:
    out = json.loads(play(capsys, "builtin:greedy", "builtin:random", "--seed", "2", "--config", SHORT, "--json"))
    for seat in out["players"]:
        used = seat["time"]
        assert 0 < used["slowest_ms"] <= used["total_ms"]
        assert 0 <= used["bank_left_ms"] <= 10000 and used["slowest"]
    text = play(capsys, "builtin:greedy", "builtin:random", "--seed", "2", "--config", SHORT)
    assert "time:    seat 1: " in text and "bank left 10000 ms" in text


def test_a_crash_shows_its_log_tail_and_the_log_dir_hint(tmp_path: Path, capsys) -> None:
    broken = str(write_bot(tmp_path / "broken", SYNTAX_ERROR))
    text = play(capsys, broken, "builtin:random", "--seed", "1")
    assert "crashed" in text
    assert "log of seat 1 (broken), last lines:" in text
    assert "def broken(:" in text and "SyntaxError" in text  # the line that does not compile
    assert "(the whole log: add --log-dir DIR)" in text
    text = play(capsys, broken, "builtin:random", "--seed", "1", "--log-dir", str(tmp_path / "logs"))
    assert "SyntaxError" in text and "add --log-dir" not in text


def test_no_reply_to_init_asks_about_flushing(tmp_path: Path, capsys) -> None:
    silent = str(write_bot(tmp_path / "silent", NO_FLUSH))
    out = json.loads(play(capsys, silent, "builtin:random", "--seed", "1", "--json", "--init-ms", "1500"))
    seat = out["players"][0]
    assert seat["status"] == "timeout"
    assert seat["detail"] == ("init (id 0): no reply within its init_ms budget of 1500 ms: its start-up took longer "
                              "(imports and loading a model count), or its reply was written and not flushed (did it "
                              "flush stdout after writing?)")


def test_the_log_marks_say_which_turn_a_line_was_written_in(tmp_path: Path, capsys) -> None:
    clumsy = str(write_bot(tmp_path / "clumsy", CLUMSY_GALAXY))
    play(capsys, clumsy, "builtin:random", "--seed", "1", "--config", SHORT, "--log-dir", str(tmp_path))
    by_turn = lines_by_turn((tmp_path / "seat1-Clumsy.log").read_text())
    for turn in range(1, 7):
        assert f"thinking about turn {turn}" in by_turn[turn]
        assert not any(f"thinking about turn {turn}" in line for t, lines in by_turn.items() if t != turn
                       for line in lines)
    assert any("ZeroDivisionError" in line for line in by_turn[3])
