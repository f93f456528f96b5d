"""Galaxy engine speed, side by side with kaggle-environments' `planet_wars` in the same process.

Both sides play whole games between scripted players in-engine (no bot protocol): ours through
the `Game` interface the referee uses (requests, step, frame), theirs through `env.run` with
its built-in `nearest_enemy` agents. The figure is turns per second over several seeds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from armada.games.galaxy import GALAXY
from armada.games.galaxy.geometry import DIST, HOME

TARGET_RATIO = 20
GALAXY_SEEDS = range(40)  # Galaxy games are cheap: more of them for a steadier figure
PLANET_WARS_SEEDS = range(4)
ROUNDS = 5  # best of 5: the machine is noisy, the best round is the least disturbed


#: NEAR[p]: the other planets by distance from planet p (ties by id).
NEAR: list[list[int]] = [[]] + [
    sorted((t for t in range(1, 17) if t != p), key=lambda t, p=p: DIST[p][t]) for p in range(1, 17)
]


class ScriptedPlayer:
    """A greedy in-process player: probes the foreign planets nearest its home, attacks what it can beat."""

    def __init__(self) -> None:
        self.obs: dict[str, Any] = {}

    def scout(self, obs: dict[str, Any]) -> dict[str, Any]:
        self.obs = obs
        seat = obs["seat"]
        planets = obs["planets"]
        foreign = [t for t in NEAR[HOME[seat]] if planets[t - 1]["owner"] != seat]
        return {"probes": foreign[: obs["probes"]]}

    def command(self, intel: list[dict[str, Any]]) -> dict[str, Any]:
        seat = self.obs["seat"]
        power = {}
        for i in intel:
            g = i["garrison"]
            power[i["planet"]] = 4 * g["battleships"] + 2 * g["cruisers"] + g["launchers"]
        fleets = []
        for p in self.obs["planets"]:
            if p["owner"] != seat:
                continue
            b, c = p["garrison"]["battleships"], p["garrison"]["cruisers"]
            for t in NEAR[p["id"]]:
                if t not in power:
                    continue
                if power[t] < 2 * c:
                    fleets.append({"from": p["id"], "to": t, "battleships": 0, "cruisers": c})
                    c = 0
                elif power[t] < 4 * b + 2 * c:
                    fleets.append({"from": p["id"], "to": t, "battleships": b, "cruisers": c})
                    b = c = 0
                if not b and not c:
                    break
        return {"fleets": fleets}


def play_galaxy(seed: int) -> int:
    """One whole Galaxy game between two scripted players; returns the turns played."""
    state = GALAXY.initial_state(seed, GALAXY.parse_config(None))
    players = {1: ScriptedPlayer(), 2: ScriptedPlayer()}
    GALAXY.frame(state)
    while GALAXY.result(state) is None:
        requests = GALAXY.requests(state)
        if state.phase == "scout":
            answers = {s: players[s].scout(r.payload["observation"]) for s, r in requests.items()}
        else:
            answers = {s: players[s].command(r.payload["intel"]) for s, r in requests.items()}
        GALAXY.step(state, answers)
        GALAXY.frame(state)
    return state.turn


def play_planet_wars(seed: int) -> int:
    """One whole kaggle-environments planet_wars game between its built-in agents; returns its turns."""
    from kaggle_environments import make

    env = make("planet_wars", configuration={"seed": seed})
    env.run(["nearest_enemy", "nearest_enemy"])
    return len(env.steps) - 1


def turns_per_second(play: Callable[[int], int], seeds: range) -> tuple[float, int]:
    """Turns per second of CPU time of this process over all seeds, and the turns played."""
    turns = 0
    start = time.process_time()
    for seed in seeds:
        turns += play(seed)
    return turns / (time.process_time() - start), turns


def run(out: Callable[[str], Any] = print) -> list[str]:
    """Measure both engines in this process; print the figures; return the target lines.

    The two are measured in alternating rounds and the best round of each counts, so a busy
    machine disturbs both alike.
    """
    try:
        import kaggle_environments  # noqa: F401
    except ImportError:
        out("galaxy bench: kaggle_environments is not installed; cannot compare (pip install kaggle-environments)")
        return [f"target galaxy-vs-planet-wars: 0 >= {TARGET_RATIO} short"]
    play_galaxy(99)  # warm-up (imports, caches)
    play_planet_wars(99)
    ours, theirs = 0.0, 0.0
    our_turns = their_turns = 0
    for _ in range(ROUNDS):
        rate, our_turns = turns_per_second(play_galaxy, GALAXY_SEEDS)
        ours = max(ours, rate)
        rate, their_turns = turns_per_second(play_planet_wars, PLANET_WARS_SEEDS)
        theirs = max(theirs, rate)
    ratio = ours / theirs
    how = f"best of {ROUNDS} rounds, CPU time"
    out(
        f"galaxy engine:              {ours:8.0f} turns/s ({our_turns} turns in {len(GALAXY_SEEDS)} games; "
        f"{how}; scripted players)"
    )
    out(
        f"kaggle planet_wars env.run: {theirs:8.0f} turns/s ({their_turns} turns in {len(PLANET_WARS_SEEDS)} games; "
        f"{how}; its nearest_enemy agents)"
    )
    out(f"galaxy / planet_wars:       {ratio:8.1f} x")
    verdict = "ok" if ratio >= TARGET_RATIO else "short"
    return [f"target galaxy-vs-planet-wars: {ratio:.1f} >= {TARGET_RATIO} {verdict}"]


if __name__ == "__main__":
    for line in run(print):
        print(line)
