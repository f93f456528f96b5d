"""`armada tournament`'s scores are the ladder's: the same game results, applied by the platform's
own pure functions (ratings.advance, which calls ratings.new_ratings), give the same ratings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.cli.main import main
from armada_web.ladder import ratings
from armada_web.ladder.logic import ratings as ratings_logic
from armada_web.ladder.models import Rating
from tests.sdk.cli.bots import CRASH_AFTER_INIT, IDLE_GALAXY, write_bot


def ladder_rows(names: list[str], games: list[dict]) -> dict[str, Rating]:
    """Every bot as a fresh version on the ladder, then each game applied as a finished ranked match."""
    rows = {name: Rating(version_id=i + 1, mu=0.0, sigma=0.0) for i, name in enumerate(names)}
    start = {row.version_id: ratings_logic.placement_start(None) for row in rows.values()}
    for game in sorted(games, key=lambda g: g["index"]):
        one, two = rows[game["seat1"]], rows[game["seat2"]]
        winner = None if game["winner"] is None else 1 if game["winner"] == game["seat1"] else 2
        ratings.advance(one=one, two=two, match_id=game["index"], winner=winner, statuses=tuple(game["statuses"]),
                        details=("", ""), start=start)
    return rows


def test_tournament_scores_equal_the_ladders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    idle = str(write_bot(tmp_path / "idle", IDLE_GALAXY))
    crasher = str(write_bot(tmp_path / "crasher", CRASH_AFTER_INIT))
    code = main(["tournament", "builtin:greedy", "builtin:greedy", idle, crasher, "-n", "2", "--jobs", "2",
                 "--seed", "2", "--config", '{"max_turns": 12}', "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(captured.out)
    outcomes = {g["outcome"] for g in data["games"]}
    assert {"forfeit", "draw"} <= outcomes and outcomes - {"forfeit", "draw"}  # wins, draws and forfeits
    names = [b["name"] for b in data["bots"]]
    rows = ladder_rows(names, data["games"])
    for bot in data["bots"]:
        row = rows[bot["name"]]
        assert bot["mu"] == pytest.approx(row.mu, abs=1e-12) and bot["sigma"] == pytest.approx(row.sigma, abs=1e-12)
        assert bot["score"] == pytest.approx(ratings_logic.displayed(ratings_logic.Skill(row.mu, row.sigma)), abs=1e-12)
        assert (bot["wins"], bot["draws"], bot["losses"]) == (row.wins, row.draws, row.losses)
        assert bot["provisional"] == ratings_logic.provisional(row.games)
    scores = [b["score"] for b in data["bots"]]
    assert scores == sorted(scores, reverse=True)
    assert data["bots"][-1]["name"] == "crasher"
