"""The fast Galaxy codec (built once per scout observation, packed flat) gives exactly what the
documented encoding says, checked against a plain per-cell reading of the requests (docs/rl.md)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import armada
from armada.games.galaxy.geometry import coords
from armada.rl.galaxy import COUNT_CAP, FLEET_FEATURES, FRACTIONS, GAME_FEATURES, PLANET_FEATURES, GalaxyCodec

_UNITS = ("battleships", "cruisers", "launchers")


def _reference(request: dict[str, Any] | None, seen: dict[str, Any], max_turns: int, max_fleets: int
               ) -> dict[str, np.ndarray]:
    """docs/rl.md's Galaxy observation, cell by cell, from the seat's latest scout request and this step's."""
    if request is not None and request["type"] == "scout":
        seen.update(observation=request["observation"], intel=[])
    elif request is not None:
        seen["intel"] = request["intel"]
    planets = np.zeros((16, len(PLANET_FEATURES)), np.float64)
    fleets = np.zeros((max_fleets, len(FLEET_FEATURES)), np.float64)
    game = np.zeros(len(GAME_FEATURES), np.float64)
    game[GAME_FEATURES.index("end" if request is None else request["type"])] = 1
    game[GAME_FEATURES.index("max_turns")] = max_turns
    obs = seen.get("observation")
    if obs is None:
        return {"planets": planets.astype(np.float32), "fleets": fleets.astype(np.float32),
                "game": game.astype(np.float32)}
    col = PLANET_FEATURES.index
    for planet in obs["planets"]:
        row = planets[planet["id"] - 1]
        row[col("row")], row[col("col")] = coords(planet["id"])
        owner = planet["owner"]
        row[col("mine" if owner == obs["seat"] else "enemy" if owner else "neutral")] = 1
        if owner == obs["seat"]:
            row[col("known")], row[col("hold")] = 1, planet["hold"]
            for unit in _UNITS:
                row[col(unit)], row[col(f"production_{unit}")] = planet["garrison"][unit], planet["production"][unit]
    for report in seen["intel"]:
        row = planets[report["planet"] - 1]
        row[col("known")] = row[col("probed")] = 1
        for unit in _UNITS:
            row[col(unit)], row[col(f"production_{unit}")] = report["garrison"][unit], report["production"][unit]
    for i, fleet in enumerate(obs["fleets"][:max_fleets]):
        fleets[i] = [1, fleet["from"], fleet["to"], fleet["battleships"], fleet["cruisers"], fleet["turns_left"]]
    owners = [p["owner"] for p in obs["planets"]]
    for name, value in (("turn", obs["turn"]), ("seat", obs["seat"]), ("probes", obs["probes"]),
                        ("my_planets", owners.count(obs["seat"])),
                        ("enemy_planets", sum(1 for o in owners if o not in (0, obs["seat"])))):
        game[GAME_FEATURES.index(name)] = value
    return {key: np.minimum(value.astype(np.float32), COUNT_CAP)
            for key, value in (("planets", planets), ("fleets", fleets), ("game", game))}


def _reference_fleets(action: np.ndarray, obs: dict[str, Any]) -> list[dict[str, int]]:
    """docs/rl.md's command decoding: each own planet's row sends its share, rounded up, to its target."""
    fleets = []
    for planet in sorted((p for p in obs["planets"] if p["owner"] == obs["seat"]), key=lambda p: p["id"]):
        target, bucket = (int(v) for v in action[planet["id"] - 1])
        share = FRACTIONS[min(max(bucket, 0), 3)]
        sent = {unit: math.ceil(planet["garrison"][unit] * share) for unit in ("battleships", "cruisers")}
        if 1 <= target <= 16 and target != planet["id"] and sum(sent.values()):
            fleets.append({"from": planet["id"], "to": target, **sent})
    return fleets


def test_galaxy_observations_and_replies_match_the_documented_encoding_cell_by_cell() -> None:
    for seed, max_fleets in ((1, 32), (2, 3)):
        session = armada.Session("galaxy", seed=seed, config={"max_turns": 15})
        codec = GalaxyCodec(session.config, max_fleets=max_fleets)
        memory: dict[int, dict[str, Any]] = {1: {}, 2: {}}
        seen: dict[int, dict[str, Any]] = {1: {}, 2: {}}
        rng = np.random.default_rng(seed)
        intel_seen = fleets_flying = 0
        while not session.done:
            replies = {}
            for seat, request in session.requests().items():
                obs, expected = codec.encode(request, memory[seat]), _reference(request, seen[seat], 15, max_fleets)
                for key in expected:
                    assert obs[key].dtype == np.float32 and np.array_equal(obs[key], expected[key]), (seed, key)
                action = rng.integers(0, codec.action_space.nvec)
                replies[seat] = codec.decode(action, request, memory[seat])
                if request["type"] == "command":
                    assert replies[seat]["fleets"] == _reference_fleets(action, seen[seat]["observation"])
                    intel_seen += len(request.get("intel", []))
                else:
                    fleets_flying = max(fleets_flying, len(request["observation"]["fleets"]))
            session.step(replies)
        assert intel_seen > 0 and fleets_flying > 3  # intel encoded; fleets past a cap of 3 left out
        for seat in (1, 2):
            end, expected = codec.encode(None, memory[seat]), _reference(None, seen[seat], 15, max_fleets)
            assert all(np.array_equal(end[key], expected[key]) for key in expected)
    empty = GalaxyCodec(session.config).encode(None, {})
    assert all(np.array_equal(empty[key], value) for key, value in _reference(None, {}, 15, 32).items())
