"""`armada.replay.pairs` and `read_dataset` (issue 25): a replay becomes each seat's (observation,
reply) pairs, the observation rebuilt by the engine exactly as the bot received it (fog included),
for both games; a downloaded dataset's folder is read replay by replay, checksums checked."""

from __future__ import annotations

import copy
import gzip
import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

import armada
from armada.bot.runtime import respond
from armada.replay import ReplayError, pairs, read_dataset, replay_bytes

CONFIG: dict[str, dict[str, Any] | None] = {"galaxy": {"max_turns": 4}, "mothership": None}


class Recording:
    """A starter played in-process that keeps every message it was sent (as `armada.run` sends them)."""

    def __init__(self, game: str, name: str) -> None:
        self.bot = importlib.import_module(f"armada.starters.{game}.{name}").Bot()
        self.seen: list[dict[str, Any]] = []

    def __call__(self, message: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(copy.deepcopy(message))
        reply = respond(self.bot, message) or {}
        return {key: value for key, value in reply.items() if key != "id"}


@pytest.fixture(scope="module", params=["galaxy", "mothership"])
def played(request: pytest.FixtureRequest) -> tuple[dict[str, Any], list[Recording]]:
    game = request.param
    seats = [Recording(game, "greedy"), Recording(game, "random")]
    outcome = armada.run(game, seats, seed=5, config=CONFIG[game])
    return outcome.replay, seats


def test_each_seats_pairs_are_what_the_bot_was_sent_and_what_it_replied(played):
    replay, seats = played
    found = pairs(replay)
    assert sorted(found) == [1, 2]
    for seat, recording in enumerate(seats, 1):
        sent = [{k: v for k, v in m.items() if k not in ("id", "bank_ms")} for m in recording.seen
                if m["type"] not in ("init", "end")]
        assert [p.observation for p in found[seat]] == sent
        assert [p.reply for p in found[seat]] == [step["answers"][str(seat)] for step in replay["steps"]]
        assert [p.step for p in found[seat]] == list(range(len(replay["steps"])))
    if replay["game"] == "galaxy":
        scout = found[1][0].observation
        assert scout["type"] == "scout" and scout["turn"] == 1 and found[1][0].turn == 1
        assert scout["observation"]["seat"] == 1 and found[2][0].observation["observation"]["seat"] == 2
        assert scout != found[2][0].observation  # each seat's own fogged view
        assert found[1][1].observation["type"] == "command" and "intel" in found[1][1].observation
    else:
        assert found[1][0].observation["type"] == "orders" and found[1][0].turn is None


def test_a_replay_the_engine_does_not_reproduce_is_refused(played):
    replay, _seats = played
    broken = copy.deepcopy(replay)
    broken["steps"][0]["events"] = [{"type": "made up"}]
    with pytest.raises(ReplayError, match=r"step 0 \(events\) does not match"):
        pairs(broken)


def _balanced(message: dict[str, Any]) -> dict[str, Any]:
    return Recording("mothership", "balanced")(message)


@pytest.mark.parametrize(("config", "orders", "status"), [
    # refused: 3,000 fighters, past what a replay keeps of an answer (MAX_ANSWER_BYTES)
    (None, {"mothership": {"defence": 10}, "fighters": [{"attack": 1, "defence": 1, "pattern": [1]}] * 3000},
     "invalid"),
    # valid: an organiser allows patterns of 10,000 shots, so the orders are larger than what is kept
    ({"max_pattern": 10000}, {"mothership": {"defence": 10},
                              "fighters": [{"attack": 5, "defence": 5, "pattern": [1, 2] * 5000}] * 5}, "ok"),
])
def test_a_mothership_replay_with_an_answer_too_large_to_keep_still_reads(config, orders, status):
    """The one step's answer is kept as a note of its size: the step is read as recorded (its
    last), the other seat's pair is there, the large answer gives none."""
    outcome = armada.run("mothership", [lambda message: dict(orders), _balanced], seed=3, config=config)
    replay = json.loads(replay_bytes(outcome.replay))  # as stored and downloaded
    assert outcome.players[0].status == status
    assert replay["steps"][0]["answers"]["1"]["truncated"] is True
    found = pairs(replay)
    assert found[1] == [] and [p.reply for p in found[2]] == [replay["steps"][0]["answers"]["2"]]
    assert armada.replay.rebuild_states(replay)[-1] == replay["steps"][0]["frame"]
    again = copy.deepcopy(replay)  # an answer too large to keep is no licence to change the recording
    again["steps"].append(copy.deepcopy(again["steps"][0]))
    with pytest.raises(ReplayError, match=r"step 0: seat 1's answer was too large to keep \(\d+ bytes, over 65536\)"):
        pairs(again)


def write_dataset(folder: Path, replays: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for number, replay in enumerate(replays, 1):
        data = gzip.compress(replay_bytes(replay), mtime=0)
        name = f"{number}.json.gz"
        (folder / name).write_bytes(data)
        rows.append({"match": number, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "file": name})
    (folder / "manifest.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return rows


def test_read_dataset_reads_every_replay_in_the_manifests_order(played, tmp_path):
    replay, _seats = played
    game = replay["game"]
    other = armada.run(game, [Recording(game, "random"), Recording(game, "greedy")], seed=8, config=CONFIG[game])
    rows = write_dataset(tmp_path, [replay, other.replay])
    examples = list(read_dataset(tmp_path))
    assert [e.row for e in examples] == rows
    assert examples[0].replay == replay and examples[0].pairs == pairs(replay)
    assert examples[1].pairs[2][0].reply == other.replay["steps"][0]["answers"]["2"]


def test_read_dataset_refuses_a_damaged_or_missing_file(played, tmp_path):
    replay, _seats = played
    write_dataset(tmp_path, [replay])
    damaged = tmp_path / "1.json.gz"
    damaged.write_bytes(damaged.read_bytes()[:-5])
    with pytest.raises(ReplayError, match="SHA-256 is not the manifest's"):
        list(read_dataset(tmp_path))
    damaged.unlink()
    with pytest.raises(ReplayError, match=r"cannot read .*1\.json\.gz"):
        list(read_dataset(tmp_path))
    with pytest.raises(ReplayError, match=r"cannot read .*manifest\.jsonl"):
        list(read_dataset(tmp_path / "nowhere"))


def test_read_dataset_of_an_interrupted_download_says_to_run_it_again(played, tmp_path):
    """`armada dataset download` writes the manifest when a run ends: a folder it was stopped in
    holds replays and no manifest, and the error says how to finish it rather than only "no such file"."""
    replay, _seats = played
    write_dataset(tmp_path, [replay])
    (tmp_path / "manifest.jsonl").unlink()
    with pytest.raises(ReplayError, match=r"no manifest\.jsonl in .*: its `armada dataset download` did not finish; "
                                          r"run the same command again"):
        list(read_dataset(tmp_path))
