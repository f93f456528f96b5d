"""Helpers every bot needs: bank_ms, relative ids and mirror() (GX-4), IntelMemory (GX-9), bot_seed, game check."""

from __future__ import annotations

import io
import json

import pytest

from armada.bot import bot_seed
from armada.bot.galaxy import GalaxyBot, Intel, IntelMemory, Observation, Units, mirror
from armada.bot.mothership import MothershipBot, Orders
from armada.bot.runtime import run
from tests.sdk.bots.galaxy_samples import command_request, observation, scout_request


class Recorder(GalaxyBot):
    def __init__(self) -> None:
        super().__init__()
        self.banks: list[int | None] = []

    def scout(self, obs: Observation) -> list[int]:
        self.banks.append(obs.bank_ms)
        return []

    def command(self, obs, intel, warnings):
        self.banks.append(obs.bank_ms)
        return []


def serve(bot, messages: list[dict]) -> tuple[list[dict], str]:
    out = io.StringIO()
    run(bot, io.StringIO("".join(json.dumps(m) + "\n" for m in messages)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()], ""


def test_bank_ms_of_each_request_reaches_the_observation() -> None:
    # protocol.md "Time": every request after init carries what is left in the bank
    bot = Recorder()
    scout = scout_request(observation(seat=1, turn=1))
    scout["bank_ms"] = 9000
    command = command_request(1)
    command["bank_ms"] = 8500
    serve(bot, [{"type": "init", "id": 0, "game": "galaxy", "seat": 1, "config": {}}, scout, command])
    assert bot.banks == [9000, 8500]
    assert bot.bank_ms == 8500


def test_relative_ids_make_both_seats_alike() -> None:
    # GX-4: planet k and 17 - k mirror each other; your home is relative planet 1 from either seat
    one = Observation.from_json(observation(seat=1))
    two = Observation.from_json(observation(seat=2))
    assert mirror(1) == 16 and mirror(6) == 11
    assert one.relative(one.home) == two.relative(two.home) == 1
    assert two.relative(15) == 2 and two.absolute(2) == 15
    assert all(two.absolute(two.relative(p)) == p for p in range(1, 17))
    targets = [p for p in two.planets if p.id in (12, 15)]  # both at distance 1 from 16
    assert [p.id for p in two.nearest(16, targets)] == [15, 12]  # relative 2 before relative 5
    assert [p.id for p in one.nearest(1, [one.planet(5), one.planet(2)])] == [2, 5]


def test_intel_memory_keeps_the_last_report_with_its_age() -> None:
    memory = IntelMemory()
    old = Intel(planet=6, owner=0, garrison=Units(0, 0, 9), production=Units(0, 1, 2), turn=3)
    new = Intel(planet=6, owner=2, garrison=Units(1, 0, 0), production=Units(1, 1, 1), turn=5)
    memory.update([old])
    memory.update([new])
    memory.update([old])  # an older report never replaces a newer one
    assert memory.get(6) == new and memory.age(6, now=8) == 3
    assert memory.age(7, now=8) is None and 6 in memory and len(memory) == 1
    obs = Observation.from_json(observation(seat=1, turn=8, owners={6: 2}))
    assert memory.current(obs.planet(6)) == new
    obs = Observation.from_json(observation(seat=1, turn=8, owners={6: 1}))
    assert memory.current(obs.planet(6)) is None  # the owner changed since the report
    assert list(memory) == [new]


def test_bot_seed_reads_the_environment(monkeypatch) -> None:
    # protocol.md "Environment": ARMADA_BOT_SEED
    monkeypatch.setenv("ARMADA_BOT_SEED", "4242")
    assert bot_seed() == 4242
    monkeypatch.delenv("ARMADA_BOT_SEED")
    assert bot_seed(default=7) == 7


class Fixed(MothershipBot):
    def orders(self, config):
        return Orders.cheapest(config)


def test_a_bot_of_the_other_game_stops_with_a_clear_message(capsys) -> None:
    out = io.StringIO()
    init = {"type": "init", "id": 0, "game": "galaxy", "seat": 1, "config": {}}
    with pytest.raises(SystemExit) as stopped:
        run(Fixed(), io.StringIO(json.dumps(init) + "\n"), out)
    assert stopped.value.code == 2 and out.getvalue() == ""
    assert "this is a mothership bot; run with --game mothership" in capsys.readouterr().err


def test_a_caught_exception_writes_the_line_the_referee_counts(capsys) -> None:
    class Broken(GalaxyBot):
        def scout(self, obs):
            return [1 // 0]

    replies, _ = serve(Broken(), [scout_request(observation(seat=1, turn=4), rid=7)])
    assert replies == [{"id": 7, "probes": []}]  # the fallback: the turn is skipped, not the match
    err = capsys.readouterr().err
    assert ("[armada] exception caught (turn 4, scout id 7): ZeroDivisionError: integer division or modulo by zero"
            in err)
