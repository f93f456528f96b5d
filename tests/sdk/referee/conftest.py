"""Shared helpers for the referee tests: the sum race game, the good bot, the hostile bots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from armada.referee.match import Limits, MatchOutcome, play_match
from armada.referee.process_bot import ProcessBot
from tests.sdk.referee.sumrace import SUMRACE

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "hostile"
STEADY = HERE / "bots" / "steady.py"
#: Small limits keep the tests fast; init is generous because interpreters start slowly on CI.
FAST = Limits(init_ms=5000, turn_ms=150, bank_ms=300)


def steady(label: str = "steady", step: int = 1) -> ProcessBot:
    return ProcessBot([sys.executable, str(STEADY), str(step)], cwd=str(STEADY.parent), label=label)


def hostile(name: str, *args: object, label: str | None = None) -> ProcessBot:
    script = HOSTILE / f"{name}.py"
    return ProcessBot([sys.executable, str(script), *map(str, args)], cwd=str(HOSTILE), label=label or name)


def play(bot1: ProcessBot, bot2: ProcessBot, *, seed: int = 7, limits: Limits = FAST, **kwargs) -> MatchOutcome:
    return play_match(SUMRACE, {1: bot1, 2: bot2}, seed=seed, limits=limits, **kwargs)


@pytest.fixture
def sumrace():
    return SUMRACE
