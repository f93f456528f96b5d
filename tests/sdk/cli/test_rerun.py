"""`armada replay FILE --rerun SEAT BOT` and `--requests SEAT` (issue 27): a server game re-run locally.

The recorded matches are played by small protocol-level bots that write every request they
receive to their log, so the requests rebuilt from the replay can be compared with what the
bot really received, byte for byte (Galaxy's fog and the bank included).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.games.registry import get_game
from armada.referee.match import Limits, play_match
from armada.referee.process_bot import ProcessBot
from armada.referee.rerun import requests_jsonl, seat_requests
from armada.replay import ReplayError, write_replay
from tests.sdk.cli.bots import write_bot

#: A Galaxy bot that logs each request; it probes the lowest planet id its observation shows (so its
#: replies follow the fog) and from turn CHANGE_AT on also probes planet 2; it exits at CRASH_AT.
GALAXY = '''
import json, sys
CHANGE_AT, CRASH_AT = {change}, {crash}
for line in sys.stdin:
    print("REQ " + line.rstrip("\\n"), file=sys.stderr, flush=True)
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "init":
        reply = {{"id": msg["id"], "name": "Echo"}}
    elif kind == "scout":
        if msg["turn"] >= CRASH_AT:
            print("boom at turn %d" % msg["turn"], file=sys.stderr, flush=True)
            sys.exit(3)
        seen = sorted(p["id"] for p in msg["observation"]["planets"])
        reply = {{"id": msg["id"], "probes": seen[:1] + ([2] if msg["turn"] >= CHANGE_AT else [])}}
    elif kind == "command":
        reply = {{"id": msg["id"], "fleets": []}}
    else:
        break
    print(json.dumps(reply), flush=True)
'''

#: A Mothership bot that logs each request and gives fixed orders (defence DEFENCE).
MOTHERSHIP = '''
import json, sys
for line in sys.stdin:
    print("REQ " + line.rstrip("\\n"), file=sys.stderr, flush=True)
    msg = json.loads(line)
    if msg["type"] == "init":
        reply = {{"id": msg["id"], "name": "Fixed"}}
    elif msg["type"] == "orders":
        if {crash}:
            print("boom in orders", file=sys.stderr, flush=True)
            sys.exit(3)
        fighter = {{"attack": 7, "defence": 5, "pattern": [2, 2, 3]}}
        reply = {{"id": msg["id"], "mothership": {{"defence": {defence}}}, "fighters": [fighter] * 5}}
    else:
        break
    print(json.dumps(reply), flush=True)
'''

LIMITS = Limits(init_ms=5000, turn_ms=700, bank_ms=1500)
NEVER = 10**6


def galaxy_bot(folder: Path, change: int = NEVER, crash: int = NEVER) -> Path:
    return write_bot(folder, GALAXY.format(change=change, crash=crash))


def mothership_bot(folder: Path, defence: int = 40, crash: bool = False) -> Path:
    return write_bot(folder, MOTHERSHIP.format(defence=defence, crash=crash))


def process(folder: Path) -> ProcessBot:
    return ProcessBot([sys.executable, str(folder / "main.py")], cwd=str(folder), label=folder.name)


def received(log: str) -> list[str]:
    return [line[4:] for line in log.splitlines() if line.startswith("REQ ")]


def record(tmp: Path, game: str, bots: dict[int, Path], config: dict | None = None):
    outcome = play_match(game, {seat: process(folder) for seat, folder in bots.items()}, seed=5,
                         config=config, limits=LIMITS)
    path = tmp / f"{game}.json.gz"
    write_replay(outcome.replay, path)
    return outcome, path


@pytest.fixture(scope="module")
def galaxy(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("rerun")
    bots = {1: galaxy_bot(tmp / "one"), 2: galaxy_bot(tmp / "two", change=3)}
    outcome, path = record(tmp, "galaxy", bots, {"max_turns": 6})
    return tmp, outcome, path


@pytest.fixture(scope="module")
def mothership(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("rerun-md")
    bots = {1: mothership_bot(tmp / "one"), 2: mothership_bot(tmp / "two", defence=30)}
    outcome, path = record(tmp, "mothership", bots)
    return tmp, outcome, path


@pytest.mark.parametrize("seat", [1, 2])
def test_rebuilt_requests_are_what_the_seat_received(galaxy, seat):
    # the fog (each seat's own observation), the ids, the init's config and limits and the bank
    _tmp, outcome, _path = galaxy
    sent = received(outcome.players[seat - 1].log)
    assert len(sent) > 6
    assert requests_jsonl(outcome.replay, seat).splitlines() == sent  # init ... end
    assert json.loads(sent[0])["limits"] == LIMITS.to_dict()


def test_mothership_requests_are_what_the_seat_received(mothership):
    _tmp, outcome, _path = mothership
    for seat in (1, 2):
        sent = received(outcome.players[seat - 1].log)
        assert requests_jsonl(outcome.replay, seat).splitlines() == sent


def test_the_same_bot_agrees_on_every_turn(galaxy, capsys):
    tmp, outcome, path = galaxy
    assert main(["replay", str(path), "--rerun", "2", str(tmp / "two")]) == 0
    said = capsys.readouterr()
    out = said.out
    assert out.startswith(f"all {outcome.result.turns} turns agree (")
    # the opening line counts the requests the bot answers, as the last line does, then names `end`
    answered = out.split("(")[1].split(" ")[0]
    assert f": {answered} requests, then `end`\n" in said.err


def test_an_agreeing_re_run_shows_what_the_bot_wrote_and_keeps_it_whole_with_log_dir(galaxy, capsys, tmp_path):
    """A competitor's trial: re-running a match with debug prints added showed only "all 200 turns
    agree", and `--log-dir` was taken and ignored: the bot's own output is the point of a re-run."""
    tmp, outcome, path = galaxy
    assert main(["replay", str(path), "--rerun", "2", str(tmp / "two")]) == 0
    out = capsys.readouterr().out
    assert "log of seat 2 (two), last lines:" in out and "REQ " in out
    assert "(the whole log: add --log-dir DIR)" in out
    logs = tmp_path / "logs"
    assert main(["replay", str(path), "--rerun", "2", str(tmp / "two"), "--log-dir", str(logs)]) == 0
    out = capsys.readouterr().out
    written = logs / "seat2-two.log"
    assert f"its whole log: {written}" in out and "(the whole log: add" not in out
    assert written.read_text().count("REQ ") == len(received(outcome.players[1].log))  # every request
    # the folder `armada play --log-dir` wrote for the match is not overwritten (a review)
    assert main(["replay", str(path), "--rerun", "2", str(tmp / "two"), "--log-dir", str(logs)]) == 2
    assert f"--log-dir: {logs} holds a log of seat 2 already (seat2-two.log); give another folder" \
        in capsys.readouterr().err


def test_a_changed_bot_differs_at_its_first_changed_turn(galaxy, capsys):
    tmp, _outcome, path = galaxy
    changed = galaxy_bot(tmp / "changed", change=4)  # seat 2 probed planet 2 from turn 3 on
    assert main(["replay", str(path), "--rerun", "2", str(changed)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("turn 3 differs (scout, request 5)\n")
    assert "recorded: " in out and "this bot: " in out and "REQ " in out  # its log follows


def test_a_difference_without_bot_seed_says_what_a_sites_match_needs(galaxy, capsys):
    """A site's match keys each bot's ARMADA_BOT_SEED with a secret: a seeded bot re-run without the page's
    --bot-seed differs from turn 1 on, so a difference without --bot-seed says where to get it."""
    tmp, _outcome, path = galaxy
    changed = galaxy_bot(tmp / "changed", change=4)
    assert main(["replay", str(path), "--rerun", "2", str(changed)]) == 1
    err = capsys.readouterr().err
    assert "no --bot-seed given" in err
    assert "the match page (a validation game: the version's page) gives its owner" in err
    assert main(["replay", str(path), "--rerun", "2", str(changed), "--bot-seed", "7"]) == 1
    assert "no --bot-seed given" not in capsys.readouterr().err
    assert main(["replay", str(path), "--rerun", "2", str(tmp / "two")]) == 0  # no difference: nothing to say
    assert "no --bot-seed given" not in capsys.readouterr().err
    # a bot seed is a seed: 0..2**63 - 1, as --seed
    assert main(["replay", str(path), "--rerun", "2", str(changed), "--bot-seed", "-1"]) == 2
    assert "--bot-seed: seed must be between 0 and" in capsys.readouterr().err


def test_a_crash_shows_the_bots_log(galaxy, capsys):
    tmp, _outcome, path = galaxy
    crasher = galaxy_bot(tmp / "crasher", crash=2)
    assert main(["replay", str(path), "--rerun", "1", str(crasher)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("turn 2 differs (scout, request 3)\n")
    assert "crashed: exited with code 3" in out and "boom at turn 2" in out


def test_a_server_crash_reproduces(tmp_path, capsys):
    bots = {1: galaxy_bot(tmp_path / "ok"), 2: galaxy_bot(tmp_path / "crasher", crash=2)}
    outcome, path = record(tmp_path, "galaxy", bots, {"max_turns": 6})
    assert outcome.players[1].status == "crashed"
    # seat 1 also got the scout of turn 2 (never a step: seat 2 crashed on it), then the forfeit's end
    for seat in (1, 2):
        assert requests_jsonl(outcome.replay, seat).splitlines() == received(outcome.players[seat - 1].log)
    assert main(["replay", str(path), "--rerun", "1", str(bots[1])]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("all 1 turns agree (4 requests)")  # turn 2's reply was never kept
    assert ": 4 requests, then `end`\n" in said.err  # (the scout of turn 2 too; `end` not counted twice)
    assert main(["replay", str(path), "--rerun", "2", str(bots[2])]) == 0
    said = capsys.readouterr()
    assert ": 4 requests\n" in said.err  # its last it failed: no `end` is sent (a trial)
    out = said.out
    # the turns played agree (1, the result's turns, as the match page says); it failed in the next
    assert outcome.result.turns == 1
    assert out.startswith("all 1 turns agree (") and "failed as on the server (turn 2: crashed" in out
    assert "boom at turn 2" in out
    # the same bot fixed: it answers where the server saw a crash
    assert main(["replay", str(path), "--rerun", "2", str(galaxy_bot(tmp_path / "fixed"))]) == 1
    assert capsys.readouterr().out.startswith("turn 2 differs (scout, request 3)\n")
    # a fixed bot that also draws: its reply is shown as the replay keeps it, without the drawing
    drawer = write_bot(tmp_path / "drawer", GALAXY.format(change=NEVER, crash=NEVER).replace(
        '"probes": seen[:1]', '"debug": {"shapes": [{"kind": "dot", "at": 1}], "text": "plan"}, "probes": seen[:1]'))
    assert main(["replay", str(path), "--rerun", "2", str(drawer)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("turn 2 differs (scout, request 3)\n")
    said = next(line for line in out.splitlines() if line.startswith("  this bot: "))
    assert said.startswith("  this bot: replied {") and '"probes"' in said and "debug" not in said


def test_a_server_crash_in_a_turns_second_request_counts_the_turns_played(tmp_path, capsys):
    """A crash in turn 3's command (its scout answered): the match played 2 turns, and so does the re-run say."""
    crashing = GALAXY.format(change=NEVER, crash=NEVER).replace(
        '    elif kind == "command":\n',
        '    elif kind == "command" and msg["turn"] == 3:\n        sys.exit(3)\n    elif kind == "command":\n')
    bots = {1: galaxy_bot(tmp_path / "ok"), 2: write_bot(tmp_path / "crasher", crashing)}
    outcome, path = record(tmp_path, "galaxy", bots, {"max_turns": 6})
    assert outcome.players[1].status == "crashed" and outcome.result.turns == 2
    assert main(["replay", str(path), "--rerun", "2", str(bots[2])]) == 0
    out = capsys.readouterr().out
    assert out.startswith("all 2 turns agree (") and "failed as on the server (turn 3: crashed" in out


def test_mothership_rerun_agrees_and_differs(mothership, capsys):
    tmp, _outcome, path = mothership
    assert main(["replay", str(path), "--rerun", "1", str(tmp / "one")]) == 0
    assert capsys.readouterr().out.startswith("all 1 turns agree (2 requests)")
    assert main(["replay", str(path), "--rerun", "1", str(mothership_bot(tmp / "other", defence=35))]) == 1
    out = capsys.readouterr().out
    assert out.startswith("the orders differ (orders, request 1)\n") and '"defence":40' in out
    assert main(["replay", str(path), "--rerun", "2", str(mothership_bot(tmp / "boom", crash=True))]) == 1
    assert "boom in orders" in capsys.readouterr().out


def test_invalid_orders_are_a_recorded_step_and_still_get_end(tmp_path, capsys):
    bots = {1: mothership_bot(tmp_path / "greedy", defence=95), 2: mothership_bot(tmp_path / "fine")}
    outcome, path = record(tmp_path, "mothership", bots)
    assert outcome.players[0].status == "invalid"  # MD-1: 95 + 5 fighters' points is over 100
    for seat in (1, 2):
        assert requests_jsonl(outcome.replay, seat).splitlines() == received(outcome.players[seat - 1].log)
    assert main(["replay", str(path), "--rerun", "1", str(bots[1])]) == 0
    capsys.readouterr()


def test_requests_option_prints_json_lines(mothership, capsys):
    _tmp, outcome, path = mothership
    assert main(["replay", str(path), "--requests", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["init", "orders", "end"]
    assert lines == received(outcome.players[1].log)


def test_bad_seats_and_replays_are_clear_errors(galaxy, mothership, capsys):
    tmp, outcome, path = galaxy
    assert main(["replay", str(path), "--rerun", "3", str(tmp / "one")]) == 2
    assert "seat 3 is out of range" in capsys.readouterr().err
    assert main(["replay", str(path), "--rerun", "x", str(tmp / "one")]) == 2
    assert "SEAT is 1 or 2" in capsys.readouterr().err
    no_steps = tmp / "empty.json"
    write_replay({**outcome.replay, "steps": []}, no_steps)
    assert main(["replay", str(no_steps), "--rerun", "1", str(tmp / "one")]) == 2
    assert "--rerun: " in capsys.readouterr().err
    with pytest.raises(ReplayError, match="not a galaxy one"):
        seat_requests(mothership[1].replay, 1, game=get_game("galaxy"))
    broken = json.loads(json.dumps(outcome.replay))
    broken["steps"][1]["frame"]["turn"] = 99  # not what the recorded answers give (another engine)
    with pytest.raises(ReplayError, match="does not match the recording"):
        seat_requests(broken, 1)


def test_a_sandbox_that_cannot_start_the_bot_is_the_platforms_failure_not_a_difference(galaxy, capsys,
                                                                                      monkeypatch):
    """A new user's re-run found every slot taken: it said "turn 0 differs ... could not start" and
    exit 1, as if the bot's replies differed. It is exit 2 with the sandbox's reason, no verdict."""
    from armada.cli.commands import replay as replay_command
    from armada.referee.connection import Unavailable

    tmp, _outcome, path = galaxy

    class NoSlot(ProcessBot):
        def start(self) -> None:
            raise Unavailable("the sandbox could not start 'two': all 14 sandbox slots stayed taken for 30 s")

    monkeypatch.setattr(replay_command, "connection", lambda source, sandbox, label: NoSlot(["true"], label=label))
    assert main(["replay", str(path), "--rerun", "2", str(tmp / "two")]) == 2
    out, err = capsys.readouterr()
    assert "differs" not in out and "agree" not in out
    assert err.strip().splitlines()[-1] == ("armada: error: the sandbox could not start 'two': all 14 sandbox "
                                            "slots stayed taken for 30 s")
