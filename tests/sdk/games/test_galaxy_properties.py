"""Property tests over random play: invariants of GX-4, GX-13, GX-14, GX-17, GX-18, GX-20, GX-21, GX-23."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from armada.games.galaxy import GALAXY
from armada.games.galaxy.battle import TIE_SURVIVOR, take_losses
from armada.games.galaxy.geometry import mirror
from armada.games.galaxy.state import GalaxyState

from .galaxy_helpers import new_state

UNITS = ("battleships", "cruisers", "launchers")


def triple(d: dict[str, int]) -> tuple[int, int, int]:
    return (d["battleships"], d["cruisers"], d["launchers"])


def mle3(t: tuple[int, int, int]) -> int:
    return 4 * t[0] + 2 * t[1] + t[2]


def power(state: GalaxyState) -> dict[int, int]:
    """Total MLE held by each owner (0: neutral launchers), fleets in flight included."""
    total = {0: 0, 1: 0, 2: 0}
    for p in state.planets:
        total[p.owner] += 4 * p.battleships + 2 * p.cruisers + p.launchers
    for f in state.fleets:
        total[f.owner] += 4 * f.battleships + 2 * f.cruisers
    return total


def random_probes(rnd: random.Random, obs: dict[str, Any]) -> dict[str, Any]:
    targets: list[Any] = rnd.sample(range(1, 17), rnd.randint(0, 6))
    if rnd.random() < 0.1:
        targets.append(rnd.choice([0, 99, "x", 2.5]))
    return {"probes": targets}


def random_fleets(rnd: random.Random, obs: dict[str, Any]) -> dict[str, Any]:
    orders = []
    for p in obs["planets"]:
        if p["owner"] != obs["seat"] or rnd.random() < 0.3:
            continue
        g = p["garrison"]
        b = rnd.randint(0, g["battleships"])
        c = rnd.randint(0, g["cruisers"])
        if rnd.random() < 0.2:
            c = g["cruisers"] + 1  # too many: dropped whole
        to = rnd.randint(1, 16)
        orders.append({"from": p["id"], "to": to, "battleships": b, "cruisers": c})
    if rnd.random() < 0.1:
        orders.append({"from": rnd.randint(1, 16), "to": 1, "battleships": -1, "cruisers": "2"})
    return {"fleets": orders}


def check_planets(state: GalaxyState) -> None:
    """Counts never negative; neutral planets hold only launchers; fleets are non-empty and valid."""
    for p in state.planets:
        assert p.owner in (0, 1, 2)
        assert min(p.battleships, p.cruisers, p.launchers, p.hold) >= 0
        if p.owner == 0:
            assert p.battleships == p.cruisers == 0
            assert p.hold == 0
    for f in state.fleets:
        assert f.owner in (1, 2)
        assert f.battleships >= 0 and f.cruisers >= 0 and f.battleships + f.cruisers > 0
        assert f.arrives >= state.turn or state.phase == "over"
        assert f.id % 2 == f.owner % 2


def check_battle(battle: dict[str, Any]) -> dict[int, int]:
    """GX-13/GX-14 on one battle; returns the MLE change of each owner in it."""
    sides = battle["sides"]
    change = {0: 0, 1: 0, 2: 0}
    for side in sides:
        before, after = triple(side["before"]), triple(side["after"])
        assert all(a >= 0 for a in after)
        change[side["owner"]] += mle3(after) - mle3(before)
    if "contest" in battle:
        assert [s["role"] for s in sides] == ["attacker", "attacker", "defender"]
        split = battle["contest"]["split"]
        assert sum(split) == triple(sides[2]["before"])[2] and abs(split[0] - split[1]) <= 1
        return change
    attacker, defender = sides
    a_before, d_before = triple(attacker["before"]), triple(defender["before"])
    a_after, d_after = triple(attacker["after"]), triple(defender["after"])
    a, d = mle3(a_before), mle3(d_before)
    if a > d:
        assert battle["winner"] == attacker["owner"] == battle["new_owner"]
        assert a_after == take_losses(a_before, d) and d_after == (0, 0, 0)
        assert a - d <= mle3(a_after) < a - d + 4
    elif a == d:
        assert battle["winner"] == attacker["owner"] and a_after == TIE_SURVIVOR and d_after == (0, 0, 0)
    else:
        assert battle["winner"] == defender["owner"] == battle["new_owner"]
        assert a_after == (0, 0, 0) and d_after == take_losses(d_before, a)
        assert d - a <= mle3(d_after) < d - a + 4
    return change


def check_accounting(before: dict[int, int], after: dict[int, int], events: list[dict[str, Any]]) -> None:
    """MLE changes only through battles (GX-13/14), production (GX-17) and neutral growth (GX-18)."""
    expected = dict(before)
    for event in events:
        if event["type"] == "battle":
            for owner, delta in check_battle(event).items():
                expected[owner] += delta
        elif event["type"] == "production":
            for _pid, owner, b, c, n in event["planets"]:
                expected[owner] += 4 * b + 2 * c + n
        elif event["type"] == "growth":
            expected[0] += sum(gain for _pid, gain in event["planets"])
    assert expected == after


def play(seed: int, moves: int, max_turns: int, check: bool) -> tuple[str, list[Any]]:
    """A whole random game; returns the final dump and the answers given, both as JSON-ready data."""
    rnd = random.Random(moves)
    state = new_state(seed, max_turns=max_turns)
    answers_log = []
    obs: dict[int, Any] = {}
    while GALAXY.result(state) is None:
        requests = GALAXY.requests(state)
        if state.phase == "scout":
            obs = {s: r.payload["observation"] for s, r in requests.items()}
            answers = {s: random_probes(rnd, obs[s]) for s in (1, 2)}
        else:
            answers = {s: random_fleets(rnd, obs[s]) for s in (1, 2)}
        answers_log.append(answers)
        before = power(state)
        step = GALAXY.step(state, {s: json.loads(json.dumps(a)) for s, a in answers.items()})
        assert step.faults == {}
        if check:
            check_planets(state)
            check_accounting(before, power(state), step.events)
            json.dumps(step.events)
            json.dumps(GALAXY.frame(state))
            for s in (1, 2):
                if state.phase == "scout":
                    obs_now = GALAXY.requests(state)[s].payload["observation"]
                    assert obs_now["probes"] == sum(1 for p in state.planets if p.owner == s)
                    assert [p["owner"] for p in obs_now["planets"]] == [p.owner for p in state.planets]
        assert state.turn <= max_turns
    result = GALAXY.result(state)
    assert result is not None and result.turns == state.turn <= max_turns
    if result.outcome in ("turn_limit", "draw") and state.turn < max_turns:
        assert result.outcome == "draw"  # a draw before the limit: both eliminated at once (GX-20)
    if result.outcome == "turn_limit":
        assert state.turn == max_turns
    return json.dumps(GALAXY.dump_state(state), sort_keys=True), answers_log


PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**63), moves=st.integers(0, 10**9), max_turns=st.integers(1, 60))
def test_random_play_keeps_every_invariant_and_ends_by_the_turn_limit(seed: int, moves: int, max_turns: int) -> None:
    play(seed, moves, max_turns, check=True)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**63), moves=st.integers(0, 10**9))
def test_same_seed_and_answers_give_identical_dumps(seed: int, moves: int) -> None:
    # GX-23
    first, answers = play(seed, moves, 25, check=False)
    state = new_state(seed, max_turns=25)
    for answer in answers:
        GALAXY.step(state, answer)
    assert json.dumps(GALAXY.dump_state(state), sort_keys=True) == first
    assert play(seed, moves, 25, check=False)[0] == first


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(-(2**70), 2**70))
def test_every_map_is_point_symmetric(seed: int) -> None:
    # GX-4
    state = new_state(seed)
    for p in state.planets:
        q = state.planet(mirror(p.id))
        assert (p.launchers, p.base, p.battleships, p.cruisers) == (q.launchers, q.base, q.battleships, q.cruisers)
        assert p.owner == (0 if p.id not in (1, 16) else (1 if p.id == 1 else 2))
        assert q.owner == (3 - p.owner if p.owner else 0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 10**6), stop=st.integers(1, 40))
def test_dump_and_load_at_any_point_round_trips(seed: int, moves: int, stop: int) -> None:
    rnd = random.Random(moves)
    state = new_state(seed, max_turns=20)
    obs: dict[int, Any] = {}
    for _ in range(stop):
        if GALAXY.result(state) is not None:
            break
        requests = GALAXY.requests(state)
        if state.phase == "scout":
            obs = {s: r.payload["observation"] for s, r in requests.items()}
            GALAXY.step(state, {s: random_probes(rnd, obs[s]) for s in (1, 2)})
        else:
            GALAXY.step(state, {s: random_fleets(rnd, obs[s]) for s in (1, 2)})
    data = json.loads(json.dumps(GALAXY.dump_state(state)))
    loaded = GALAXY.load_state(data)
    assert GALAXY.dump_state(loaded) == data
    assert GALAXY.requests(loaded) == GALAXY.requests(state)
