"""The Galaxy starter bots: legal answers, reproducibility, and their order of strength.

Matches are played in-process against the real engine (`GALAXY`), with each request turned
into the protocol message a bot would read on stdin.
"""

import importlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from armada.bot.galaxy import GalaxyBot, Observation
from tests.sdk.bots.galaxy_match import play_match
from tests.sdk.bots.galaxy_samples import RICH, command_request, observation, scout_request

STARTERS = ("random", "greedy", "prober")


def make_bot(name: str) -> GalaxyBot:
    return importlib.import_module(f"armada.starters.galaxy.{name}").Bot()


def play(names: dict[int, str], seed: int):
    """Play one match between starters by name; return (result, warnings sent to each seat)."""
    return play_match({seat: make_bot(name) for seat, name in names.items()}, seed)


@pytest.mark.parametrize("name", STARTERS)
def test_starter_is_a_galaxy_bot_with_a_name(name):
    bot = make_bot(name)
    assert isinstance(bot, GalaxyBot)
    assert bot.game == "galaxy"
    assert 0 < len(bot.name) <= 40


@pytest.mark.parametrize("name", STARTERS)
@pytest.mark.parametrize("seat", [1, 2])
def test_starter_answers_are_legal(name, seat):
    """GX-8, GX-10: probes are distinct foreign planets within the allowance; fleets fit the garrisons."""
    owners = {6: 1, 7: 1, 11: 2} if seat == 1 else {11: 2, 10: 2, 6: 1}
    raw = observation(seat=seat, turn=9, owners=owners)
    obs = Observation.from_json(raw)
    bot = make_bot(name)
    bot.on_init({"type": "init", "id": 0, "seat": seat, "config": {}})
    for turn in (9, 10, 11):
        raw["turn"] = turn
        probes = bot.answer(scout_request(raw))["probes"]
        assert len(probes) <= obs.probes
        assert len(set(probes)) == len(probes)
        assert all(1 <= p <= 16 and not obs.planet(p).is_mine for p in probes)
        fleets = bot.answer(command_request(turn))["fleets"]
        used: Counter = Counter()
        for order in fleets:
            source = obs.planet(order["from"])
            assert source.is_mine and source.garrison is not None
            assert order["to"] != order["from"] and 1 <= order["to"] <= 16
            assert order["battleships"] + order["cruisers"] > 0
            used[(source.id, "b")] += order["battleships"]
            used[(source.id, "c")] += order["cruisers"]
            assert used[(source.id, "b")] <= source.garrison.battleships
            assert used[(source.id, "c")] <= source.garrison.cruisers


def test_greedy_never_probes_and_prober_always_does():
    raw = RICH
    assert make_bot("greedy").answer(scout_request(raw))["probes"] == []
    assert len(make_bot("prober").answer(scout_request(raw))["probes"]) == raw["probes"]


def test_random_is_reproducible_per_seat():
    def answers(seat):
        bot = make_bot("random")
        out = []
        for turn in range(1, 6):
            raw = observation(seat=seat, turn=turn, owners={6: 1, 11: 2})
            out.append(bot.answer(scout_request(raw)))
            out.append(bot.answer(command_request(turn)))
        return out

    assert answers(1) == answers(1)
    assert answers(2) == answers(2)
    assert answers(1) != answers(2)


@pytest.mark.parametrize("name", STARTERS)
def test_engine_accepts_every_order_of_the_starters(name):
    """Over a whole match the engine drops nothing the starters send (no warnings, no faults)."""
    result, warnings = play({1: name, 2: "greedy" if name != "greedy" else "random"}, seed=3)
    assert result is not None
    assert warnings[1] == []


@pytest.mark.parametrize("name", STARTERS)
def test_starter_runs_as_a_script(name, tmp_path):
    """Copied alone as main.py (how `builtin:NAME` and `armada new` use it), it speaks the protocol."""
    module = importlib.import_module(f"armada.starters.galaxy.{name}")
    assert module.__file__ is not None
    script = Path(module.__file__)
    assert script.read_text(encoding="utf-8").rstrip().endswith('if __name__ == "__main__":\n    run(Bot())')
    (tmp_path / "main.py").write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
    raw = observation(seat=2, turn=1)
    messages = [
        {"type": "init", "id": 0, "protocol": 1, "game": "galaxy", "seat": 2, "config": {}, "limits": {}},
        scout_request(raw, rid=1),
        command_request(1, rid=2),
        {"type": "end", "id": 3, "result": {}},
    ]
    done = subprocess.run(
        [sys.executable, "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=30,
        input="".join(json.dumps(m) + "\n" for m in messages),
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [0, 1, 2]
    assert replies[0]["name"] == make_bot(name).name
    assert isinstance(replies[1]["probes"], list) and isinstance(replies[2]["fleets"], list)
    assert "Traceback" not in done.stderr


def test_strength_order_prober_greedy_random():
    """Round robin over seeds and both seats: prober wins most, random least, each beats the next."""
    wins: Counter = Counter()
    pair_wins: Counter = Counter()
    for seed in range(4):
        for a, b in (("prober", "greedy"), ("greedy", "random"), ("prober", "random")):
            for names in ({1: a, 2: b}, {1: b, 2: a}):
                result, _ = play(names, seed)
                if result.winner is not None:
                    winner = names[result.winner]
                    wins[winner] += 1
                    pair_wins[(winner, a if winner == b else b)] += 1
    assert wins["prober"] > wins["greedy"] > wins["random"], wins
    assert pair_wins[("prober", "greedy")] >= 6, pair_wins  # of 8 games
    assert pair_wins[("greedy", "random")] >= 6, pair_wins
    assert pair_wins[("prober", "random")] >= 6, pair_wins
