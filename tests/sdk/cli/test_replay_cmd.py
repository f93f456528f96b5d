"""`armada replay`: summaries, Galaxy boards, Mothership rounds, state dumps, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.cli.boards import galaxy_board, garrison_mle
from armada.cli.main import main
from armada.replay import read_replay
from tests.sdk.cli.bots import FIXED_MOTHERSHIP, write_bot


def test_summary_and_final_board(galaxy_replay: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["replay", str(galaxy_replay)]) == 0
    out = capsys.readouterr().out
    assert "game:    galaxy (engine " in out
    assert "seed:    5" in out
    assert "Greedy" in out and "Random" in out
    assert "board after turn " in out
    assert out.count("+-----------+-----------+-----------+-----------+") == 5


def test_a_sites_replay_names_its_bots_beside_their_announced_names(galaxy_replay: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A replay a site stored carries each seat's `bot` (replay-format.md): the table shows both names."""
    from armada.replay import write_replay

    replay = read_replay(galaxy_replay)
    replay["seats"][0]["bot"], replay["seats"][1]["bot"] = "alpha", "Random"  # (the second: the same name)
    site = tmp_path / "site.json.gz"
    write_replay(replay, site)
    capsys.readouterr()
    assert main(["replay", str(site)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.strip().startswith(("1 ", "2 "))]
    assert rows[0][:3] == ["1", "Greedy", "(alpha)"] and rows[1][:2] == ["2", "Random"] and "(Random)" not in rows[1]


def test_board_of_turn_zero(galaxy_replay: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["replay", str(galaxy_replay), "--turn", "0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    frame = data["frame"]
    assert frame["turn"] == 0
    assert data["seed"] == 5 and data["game"] == "galaxy"
    assert [p["name"] for p in data["players"]] == ["Greedy", "Random"]
    # GX-3: each home holds 5 battleships, 10 cruisers, 10 launchers = 50 MLE
    homes = {p["id"]: garrison_mle(p) for p in frame["planets"] if p["owner"]}
    assert homes == {1: 50, 16: 50}
    board = galaxy_board(frame)
    assert "|  1  [1]   |" in board and "| 16  [2]   |" in board
    assert "seat 1: 1 planet, total MLE 50" in board


def test_turn_out_of_range(galaxy_replay: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["replay", str(galaxy_replay), "--turn", "999"]) == 2
    assert "--turn 999: not in this replay (turns 0.." in capsys.readouterr().err


def test_dump_state_default_path(galaxy_replay: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["replay", str(galaxy_replay), "--dump-state", "2"]) == 0
    target = galaxy_replay.parent / "g-turn2.state.json"
    assert str(target) in capsys.readouterr().out
    assert json.loads(target.read_text())["turn"] == 3


@pytest.mark.parametrize("argv", [["replay", "{replay}", "--html", "{dir}/out/"],
                                  ["replay", "{replay}", "--html", "{dir}/out/."],
                                  ["replay", "{replay}", "--dump-state", "3", "--out", "{dir}/sdir/"],
                                  ["play", "builtin:random", "builtin:random", "--game", "galaxy", "--replay",
                                   "{dir}/newdir/"]])
def test_an_output_file_written_as_a_folder_is_refused(galaxy_replay: Path, tmp_path: Path, argv: list[str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """An SDK trial: `--html out/` wrote a file named `out` (and `--replay newdir/` a gzip `newdir`)."""
    args = [a.format(replay=galaxy_replay, dir=tmp_path) for a in argv]
    assert main(args) == 2
    assert "a folder's name; give a file name, such as " in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_mothership_rounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = str(write_bot(tmp_path / "zil", FIXED_MOTHERSHIP))
    path = tmp_path / "m.json.gz"
    assert main(["play", bot, bot, "--game", "mothership", "--seed", "1", "--replay", str(path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "seat 1 (Ziltoid): mothership 40 | 7/5 [2,2,3]" in out
    # MD-9: every fighter destroyed in round 3, no shot reaches a mothership
    round3 = next(line for line in out.splitlines() if "round   3" in line)
    assert "3x 3x 3x 3x 3x" in round3
    assert "M" not in round3.split(":")[1].split("mothership")[0]
    assert main(["replay", str(path), "--turn", "1"]) == 2
    assert "no turns to show" in capsys.readouterr().err
    assert main(["replay", str(path), "--dump-state", "0"]) == 0  # before the orders: playable again
    capsys.readouterr()
    assert main(["replay", str(path), "--dump-state", "1"]) == 2
    assert "a mothership match is one step" in capsys.readouterr().err


def test_bad_replay_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.json"
    junk.write_text('{"format": "something-else"}')
    assert main(["replay", str(junk)]) == 2
    assert "not an Armada replay" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.json.gz")]) == 2
    assert "cannot read replay" in capsys.readouterr().err


def test_a_sites_error_answer_saved_as_the_replay_says_what_it_is(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`curl -o match-99.json.gz .../api/matches/99/replay/` of a match that does not exist, is private or has
    not finished saves the site's 404 body; re-running it names the site's answer, not a missing 'format'."""
    saved = tmp_path / "match-99.json.gz"
    saved.write_text('{"detail":"no replay: no such match, or it has not finished"}')
    assert main(["replay", str(saved), "--rerun", "1", "builtin:greedy"]) == 2
    err = capsys.readouterr().err
    assert "holds the site's error answer, not a replay: no replay: no such match, or it has not finished" in err
    assert "format is None" not in err


@pytest.mark.parametrize(("where", "value", "argv"), [
    (("seats", 0), "x", []),
    (("result", "outcome"), None, ["--turn", "3"]),
    (("steps", 2, "events", 1, "intel"), True, ["--events"]),
    (("steps", 2, "events"), 5, ["--events"]),
])
def test_a_hand_edited_replay_is_an_error_not_a_traceback(where: tuple, value: object, argv: list[str],
                                                          galaxy_replay: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    replay = read_replay(galaxy_replay)
    part = replay
    for key in where[:-1]:
        part = part[key]
    if value is None:
        del part[where[-1]]
    else:
        part[where[-1]] = value
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(replay))
    assert main(["replay", str(path), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"armada: error: {path}: ") and err.count("\n") == 1


@pytest.mark.parametrize(("extra", "message"), [
    (["--rerun", "1", "builtin:greedy", "--turn", "3"],
     "--rerun takes --bot-seed, --sandbox and --log-dir; drop --turn"),
    (["--requests", "1", "--json"], "--requests takes no other option; drop --json"),
    (["--dump-state", "3", "--events"], "--dump-state takes --out; drop --events"),
    (["--bot-seed", "5"], "--bot-seed only goes with --rerun"),
    (["--sandbox", "docker"], "--sandbox only goes with --rerun"),
    (["--out", "x.json"], "--out only goes with --dump-state"),
    (["--html", "--turn", "3"], "--html and --open write the viewer page only; drop --turn"),
])
def test_an_option_the_mode_does_not_take_is_an_error_before_any_output(
        galaxy_replay: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A docs check found `--bot-seed` or `--sandbox` without --rerun, `--turn` with --requests or
    --rerun, and `--events` with --dump-state silently ignored (exit 0): each is now refused."""
    assert main(["replay", str(galaxy_replay), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err
    assert not galaxy_replay.with_name("g.html").exists()


def test_a_log_dir_that_is_no_folder_is_said_before_the_board(galaxy_replay: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Before, the summary and the board were printed, then the error."""
    assert main(["replay", str(galaxy_replay), "--turn", "3", "--log-dir", str(tmp_path / "nosuchdir")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "is not a folder" in captured.err


def test_a_rerun_with_a_bot_of_the_other_game_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Galaxy bot (its armada.json says so) re-run on a Mothership Down replay crashed at init
    and was reported as a difference (exit 1) with a note about --bot-seed: now status 2, saying why."""
    from armada.cli import botinfo

    path = tmp_path / "ms.json.gz"
    assert main(["play", "builtin:greedy", "builtin:balanced", "--game", "mothership", "--seed", "4",
                 "--replay", str(path), "--json"]) == 0
    bot = tmp_path / "gbot"
    assert main(["new", "gbot", "--game", "galaxy", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert botinfo.recorded_game(bot) == "galaxy"
    assert main(["replay", str(path), "--rerun", "1", str(bot)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"--rerun: {bot / 'armada.json'} names galaxy, and this is a mothership replay" in captured.err


def test_the_shot_that_destroys_a_mothership_carries_both_marks():
    """A trial: the viewer wrote the credited shot "6x" and `armada replay` "6M" (MD-6)."""
    from armada.cli.boards import _shots_text

    shots = [{"fighter": 1, "target": "mothership", "strength": 6, "destroyed": True},
             {"fighter": 2, "target": "mothership", "strength": 6, "destroyed": False},
             {"fighter": 3, "target": "fighter", "strength": 2, "destroyed": True}]
    assert _shots_text(shots, 4) == "6Mx 6M 2x -"
