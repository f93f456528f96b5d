"""Play a Galaxy match in-process: the real engine, bot objects answering protocol message dicts."""

from __future__ import annotations

from armada.bot.galaxy import GalaxyBot
from armada.games.base import Result
from armada.games.galaxy import GALAXY


def play_match(
    bots: dict[int, GalaxyBot], seed: int, max_turns: int | None = None
) -> tuple[Result, dict[int, list[str]]]:
    """Play to the end; return the result and every warning the engine sent each seat.

    Each engine request becomes the message a bot would read on stdin
    (`{"type", "id", "bank_ms", **payload}`); a seat fault fails the calling test.
    """
    config = GALAXY.parse_config({"max_turns": max_turns} if max_turns else None)
    state = GALAXY.initial_state(seed, config)
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
    result = GALAXY.result(state)
    assert result is not None
    return result, warnings
