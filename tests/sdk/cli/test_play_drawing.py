"""`armada play --replay` keeps what the bots drew under the local replay's top-level `debug` key
(replay-format.md, "Drawings"), which the offline viewer (`armada replay --open`) reads."""

from __future__ import annotations

from pathlib import Path

from armada.cli.main import main
from armada.replay import game_content, read_replay
from tests.sdk.cli.bots import IDLE_GALAXY, write_bot

#: IDLE_GALAXY that also draws: a ring on its home and the turn in words, while it scouts.
DRAWING_GALAXY = IDLE_GALAXY.replace(
    'reply = {"id": msg["id"], "probes": []}',
    'reply = {"id": msg["id"], "probes": [], "debug": {"shapes": [{"kind": "ring", "at": msg["turn"], '
    '"color": "green"}], "text": "turn %d" % msg["turn"]}}')


def test_the_local_replay_carries_the_drawings_by_seat(tmp_path: Path, capsys) -> None:
    assert DRAWING_GALAXY != IDLE_GALAXY
    drawer = str(write_bot(tmp_path / "drawer", DRAWING_GALAXY))
    idle = str(write_bot(tmp_path / "idle", IDLE_GALAXY))
    drawn = tmp_path / "drawn.json.gz"
    assert main(["play", drawer, idle, "--seed", "4", "--config", '{"max_turns": 3}', "--replay", str(drawn)]) == 0
    capsys.readouterr()
    replay = read_replay(drawn)
    assert replay["debug"] == {"1": {"turns": [
        {"turn": turn, "shapes": [{"kind": "ring", "at": turn, "color": "green"}], "text": f"turn {turn}"}
        for turn in (1, 2, 3)]}, "2": {"turns": []}}
    assert all("debug" not in step["answers"]["1"] for step in replay["steps"])
    assert "debug" not in game_content(replay)
