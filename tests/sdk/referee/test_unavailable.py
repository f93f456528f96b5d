"""A connection that cannot be set up for a reason that is not the bot's (`Unavailable`, e.g. no
Docker engine): `play_match` closes every connection and lets the error out; it is no fault."""

from __future__ import annotations

import pytest

from armada.referee.connection import BotGone, ExitInfo, Unavailable
from armada.referee.inprocess import InProcessBot
from armada.referee.match import play_match
from tests.sdk.referee.conftest import FAST, steady
from tests.sdk.referee.sumrace import SUMRACE


class NoEngine(Unavailable):
    """What a sandbox raises when it has nothing to run the bot in."""


class Refusing(InProcessBot):
    """A connection whose start raises `error`; counts its closes."""

    def __init__(self, error: Exception) -> None:
        super().__init__(lambda request: {}, label="refusing")
        self.error = error
        self.closed = 0

    def start(self) -> None:
        raise self.error

    def close(self, grace: float = 1.0) -> ExitInfo:
        self.closed += 1
        return super().close(grace)


class Counted(InProcessBot):
    """A well-behaved bot of the sum race that counts its closes."""

    def __init__(self) -> None:
        super().__init__(lambda request: {"n": 1} if request.get("type") != "init" else {}, label="counted")
        self.closed = 0

    def close(self, grace: float = 1.0) -> ExitInfo:
        self.closed += 1
        return super().close(grace)


@pytest.mark.parametrize("refusing_seat", [1, 2])
def test_an_unavailable_start_comes_out_of_play_match_after_every_connection_is_closed(refusing_seat):
    refusing, other = Refusing(NoEngine("the Docker engine is not reachable")), Counted()
    bots = {refusing_seat: refusing, 3 - refusing_seat: other}
    with pytest.raises(NoEngine, match="the Docker engine is not reachable"):
        play_match(SUMRACE, bots, seed=7, limits=FAST)
    assert refusing.closed == 1 and other.closed == 1


def test_an_unavailable_start_beside_a_bot_process_leaves_no_process():
    refusing, process = Refusing(NoEngine("no image")), steady()
    with pytest.raises(NoEngine):
        play_match(SUMRACE, {1: process, 2: refusing}, seed=7, limits=FAST)
    assert process.exit_info().returncode is not None or process.exit_info().signal is not None  # it was stopped


def test_any_other_start_failure_stays_the_bots_fault():
    refusing, other = Refusing(BotGone("cannot run main.py")), Counted()
    outcome = play_match(SUMRACE, {1: refusing, 2: other}, seed=7, limits=FAST)
    assert (outcome.players[0].status, outcome.players[0].detail) == ("crashed", "could not start: cannot run main.py")
    assert outcome.players[1].status == "ok" and outcome.winner == 2
    assert refusing.closed == 1 and other.closed == 1
