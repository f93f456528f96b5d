"""The Galaxy engine object behind the common `Game` interface: registry, requests, step order."""

from __future__ import annotations

from armada.games.galaxy import GALAXY
from armada.games.registry import get_game

from .galaxy_helpers import new_state


def test_registry_serves_the_engine() -> None:
    assert get_game("galaxy") is GALAXY
    assert GALAXY.slug == "galaxy" and GALAXY.engine_version


def test_each_turn_is_a_scout_step_then_a_command_step() -> None:
    state = new_state(2)
    requests = GALAXY.requests(state)
    assert {s: r.type for s, r in requests.items()} == {1: "scout", 2: "scout"}
    assert requests[1].payload["turn"] == 1 and requests[1].payload["observation"]["seat"] == 1
    assert requests[2].payload["observation"]["seat"] == 2
    GALAXY.step(state, {1: {"probes": []}, 2: {"probes": []}})
    requests = GALAXY.requests(state)
    assert {s: r.type for s, r in requests.items()} == {1: "command", 2: "command"}
    assert set(requests[1].payload) == {"turn", "intel", "warnings"}
    GALAXY.step(state, {1: {"fleets": []}, 2: {"fleets": []}})
    assert GALAXY.requests(state)[1].payload["turn"] == 2


def test_engine_versions_record_the_output_changes() -> None:
    # docs/replay-format.md "Engine versions": 2 = D-R-1 forfeit turns, no neutral home growth (Galaxy),
    # every problem of invalid orders listed (Mothership, D-MD-4)
    from armada.games.mothership import MOTHERSHIP

    assert (GALAXY.engine_version, MOTHERSHIP.engine_version) == ("2", "2")
