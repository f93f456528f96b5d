"""Sum race: a tiny but complete `Game` used to test the referee without the real engines.

Each turn both seats answer `{"n": 1..3}`; n is added to the seat's total, which starts at a
head start drawn from the seed. The first total to reach `target` ends the race (higher
total wins, equal totals draw); after `max_turns` the higher total wins. Any other answer
is an "invalid" fault.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from armada.games.base import ConfigError, Fault, Request, Result, StepResult


@dataclass
class RaceConfig:
    target: int = 6
    max_turns: int = 20


@dataclass
class RaceState:
    turn: int
    totals: dict[int, int]
    target: int
    max_turns: int


class SumRace:
    slug = "sumrace"
    engine_version = "sumrace-1"
    turns_label = "turns"

    def parse_config(self, raw: dict[str, Any] | None) -> RaceConfig:
        raw = dict(raw or {})
        config = RaceConfig()
        for key, value in raw.items():
            if key not in ("target", "max_turns"):
                raise ConfigError(key, "unknown key")
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(key, "must be an integer >= 1")
            setattr(config, key, value)
        return config

    def config_to_dict(self, config: RaceConfig) -> dict[str, Any]:
        return {"target": config.target, "max_turns": config.max_turns}

    def initial_state(self, seed: int, config: RaceConfig) -> RaceState:
        rng = random.Random(seed)
        head = rng.randint(0, 2)
        return RaceState(turn=1, totals={1: head, 2: head}, target=config.target, max_turns=config.max_turns)

    def requests(self, state: RaceState) -> dict[int, Request]:
        totals = {str(s): t for s, t in state.totals.items()}
        return {seat: Request("move", {"turn": state.turn, "totals": totals}) for seat in (1, 2)}

    def step(self, state: RaceState, answers: dict[int, dict[str, Any]]) -> StepResult:
        faults: dict[int, Fault] = {}
        events = []
        for seat in (1, 2):
            n = answers.get(seat, {}).get("n")
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 3:
                faults[seat] = Fault("invalid", f"n must be an integer from 1 to 3, got {n!r}")
                continue
            state.totals[seat] += n
            events.append({"seat": seat, "add": n})
        state.turn += 1
        return StepResult(state=state, events=events, faults=faults)

    def result(self, state: RaceState) -> Result | None:
        a, b = state.totals[1], state.totals[2]
        reached = max(a, b) >= state.target
        if not reached and state.turn <= state.max_turns:
            return None
        winner = None if a == b else (1 if a > b else 2)
        return Result(winner=winner, outcome="reached" if reached else "turn_limit", turns=state.turn - 1,
                      scores={"totals": {"1": a, "2": b}})

    def frame(self, state: RaceState) -> dict[str, Any]:
        return {"turn": state.turn, "totals": {"1": state.totals[1], "2": state.totals[2]}}

    def dump_state(self, state: RaceState) -> dict[str, Any]:
        return {"turn": state.turn, "totals": {"1": state.totals[1], "2": state.totals[2]},
                "target": state.target, "max_turns": state.max_turns}

    def load_state(self, data: dict[str, Any]) -> RaceState:
        try:
            return RaceState(turn=int(data["turn"]), totals={1: int(data["totals"]["1"]), 2: int(data["totals"]["2"])},
                             target=int(data["target"]), max_turns=int(data["max_turns"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad sum race state: {exc}") from None


SUMRACE = SumRace()
