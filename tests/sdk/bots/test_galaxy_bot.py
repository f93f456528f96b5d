"""`GalaxyBot`: request dispatch, conversion of answers, and the fallback after an author's error."""

import io
import json

import pytest

from armada.bot.galaxy import FleetOrder, GalaxyBot
from armada.bot.runtime import run
from tests.sdk.bots.galaxy_samples import RICH, command_request, observation, scout_request, units


class Recorder(GalaxyBot):
    """Probes the enemy home and sends every home cruiser to planet 2; records what it was given."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def scout(self, obs):
        self.calls.append(("scout", obs.turn))
        return [obs.enemy_home, obs.planet(2)]  # an id and a Planet object

    def command(self, obs, intel, warnings):
        self.calls.append(("command", obs.turn, [i.planet for i in intel], warnings))
        home = obs.planet(obs.home)
        return [FleetOrder(home.id, 2, cruisers=home.garrison.cruisers)]


def test_scout_then_command_round_trip():
    bot = Recorder()
    bot.on_init({"type": "init", "id": 0, "seat": 1, "config": {"max_turns": 50}})
    assert bot.seat == 1 and bot.config == {"max_turns": 50}
    assert bot.answer(scout_request(RICH)) == {"probes": [16, 2]}
    intel = [{"planet": 16, "owner": 2, "garrison": units(1, 2, 3), "production": units(2, 4, 4)}]
    reply = bot.answer(command_request(7, intel=intel, warnings=["probe target 1 dropped"]))
    assert reply == {"fleets": [{"from": 1, "to": 2, "battleships": 0, "cruisers": 10}]}
    assert bot.calls == [("scout", 7), ("command", 7, [16], ["probe target 1 dropped"])]
    assert bot.observation is not None and bot.observation.turn == 7


def test_seat_is_taken_from_the_observation_without_init():
    bot = Recorder()
    bot.answer(scout_request(observation(seat=2)))
    assert bot.seat == 2


def test_default_bot_does_nothing():
    bot = GalaxyBot()
    assert bot.game == "galaxy"
    assert bot.answer(scout_request(RICH)) == {"probes": []}
    assert bot.answer(command_request(7)) == {"fleets": []}


def test_command_without_that_turns_observation_is_an_error():
    bot = Recorder()
    with pytest.raises(ValueError, match="no observation of that turn"):
        bot.answer(command_request(7))
    bot.answer(scout_request(observation(turn=3)))
    with pytest.raises(ValueError, match="command request for turn 4"):
        bot.answer(command_request(4))


def test_unknown_request_type_is_an_error():
    with pytest.raises(ValueError, match="cannot answer a request of type 'orders'"):
        GalaxyBot().answer({"type": "orders", "id": 1})


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (None, "scout\\(\\) must return a list of planet ids, got NoneType"),
        ([1, "2"], "scout\\(\\) returned '2'"),
        ([True], "scout\\(\\) returned True"),
    ],
)
def test_bad_scout_answers_raise_clear_errors(returned, message):
    class Bad(GalaxyBot):
        def scout(self, obs):
            return returned

    with pytest.raises(TypeError, match=message):
        Bad().answer(scout_request(RICH))


def test_bad_command_answers_raise_clear_errors():
    class Bad(GalaxyBot):
        def command(self, obs, intel, warnings):
            return [{"from": 1, "to": 2, "battleships": 1, "cruisers": 0}]

    bot = Bad()
    bot.answer(scout_request(RICH))
    with pytest.raises(TypeError, match="expected a FleetOrder"):
        bot.answer(command_request(7))


def test_fallback_answers_empty_and_logs(capsys):
    bot = GalaxyBot()
    assert bot.fallback(scout_request(RICH)) == {"probes": []}
    assert bot.fallback(command_request(7)) == {"fleets": []}
    assert bot.fallback({"type": "orders", "id": 1}) is None
    err = capsys.readouterr().err
    assert "turn 7: scout failed, sending no probes" in err
    assert "turn 7: command failed, sending no fleets" in err


class Buggy(GalaxyBot):
    """Crashes in scout on odd turns and in command on even turns."""

    def scout(self, obs):
        if obs.turn % 2:
            raise RuntimeError("scout bug")
        return [2]

    def command(self, obs, intel, warnings):
        if obs.turn % 2 == 0:
            raise RuntimeError("command bug")
        return [FleetOrder(1, 2, cruisers=1)]


def test_a_bug_costs_a_phase_not_the_match(capsys):
    """Through the real runtime loop: errors become empty answers, and the next phase still works."""
    lines = []
    rid = 1
    for turn in (1, 2):
        lines.append(scout_request(observation(turn=turn), rid))
        lines.append(command_request(turn, rid=rid + 1))
        rid += 2
    stdin = io.StringIO("".join(json.dumps(m) + "\n" for m in lines))
    stdout = io.StringIO()
    run(Buggy(), stdin=stdin, stdout=stdout)
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert replies == [
        {"probes": [], "id": 1},  # turn 1: scout raised
        {"fleets": [{"from": 1, "to": 2, "battleships": 0, "cruisers": 1}], "id": 2},  # observation kept
        {"probes": [2], "id": 3},
        {"fleets": [], "id": 4},  # turn 2: command raised
    ]
    err = capsys.readouterr().err
    assert "scout bug" in err and "command bug" in err
    assert "turn 1: scout failed" in err
