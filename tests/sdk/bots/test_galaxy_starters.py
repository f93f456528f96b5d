"""The Galaxy starter bots: legal answers, reproducibility, and their order of strength.

Matches are played in-process against the real engine (`GALAXY`), with each request turned
into the protocol message a bot would read on stdin.
"""

import importlib
import runpy
from collections import Counter

import pytest
from armada.bot.galaxy import GalaxyBot, Observation
from armada.games.galaxy import GALAXY

from tests.sdk.bots.galaxy_samples import RICH, command_request, observation, scout_request

STARTERS = ("random", "greedy", "prober")


def make_bot(name: str) -> GalaxyBot:
    return importlib.import_module(f"armada.starters.galaxy.{name}").Bot()


def play(names: dict[int, str], seed: int, max_turns: int | None = None):
    """Play one match; return (result, warnings the engine sent to each seat)."""
    config = GALAXY.parse_config({"max_turns": max_turns} if max_turns else None)
    state = GALAXY.initial_state(seed, config)
    bots = {seat: make_bot(name) for seat, name in names.items()}
    for seat, bot in bots.items():
        bot.on_init({"type": "init", "id": 0, "protocol": 1, "game": "galaxy", "seat": seat,
                     "config": GALAXY.config_to_dict(config), "limits": {}})
    next_id = {1: 1, 2: 1}
    warnings: dict[int, list[str]] = {1: [], 2: []}
    while GALAXY.result(state) is None:
        answers = {}
        for seat, request in GALAXY.requests(state).items():
            message = {"type": request.type, "id": next_id[seat], "bank_ms": 10000, **request.payload}
            next_id[seat] += 1
            warnings[seat] += message.get("warnings", []) + message.get("observation", {}).get("warnings", [])
            answers[seat] = bots[seat].answer(message)
        step = GALAXY.step(state, answers)
        assert not step.faults, step.faults
        state = step.state
    return GALAXY.result(state), warnings


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
            assert source.is_mine and order["to"] != order["from"] and 1 <= order["to"] <= 16
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


def test_starters_run_as_scripts():
    """Each starter ends with `if __name__ == "__main__": run(Bot())` (checked without executing run)."""
    for name in STARTERS:
        module = importlib.import_module(f"armada.starters.galaxy.{name}")
        source = open(module.__file__, encoding="utf-8").read()
        assert source.rstrip().endswith('if __name__ == "__main__":\n    run(Bot())')
        namespace = runpy.run_path(module.__file__, run_name="not_main")
        assert issubclass(namespace["Bot"], GalaxyBot)


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
