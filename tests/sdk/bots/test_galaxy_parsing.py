"""Parsing Galaxy messages into the typed library objects (docs/games/galaxy-schema.md)."""

import copy

import pytest

from armada.bot.galaxy import FleetOrder, Intel, Observation, Units, parse_intel
from tests.sdk.bots.galaxy_samples import RICH, command_request, observation, units


def test_observation_fields_are_typed():
    obs = Observation.from_json(RICH)
    assert (obs.turn, obs.max_turns, obs.seat, obs.probes) == (7, 200, 1, 2)
    assert len(obs.planets) == 16
    assert [p.id for p in obs.planets] == list(range(1, 17))
    home = obs.planet(1)
    assert home.garrison == Units(5, 10, 10)
    assert home.production == Units(2, 4, 4)
    assert home.hold == 0
    assert obs.planet(6).garrison == Units(0, 2, 0)
    assert obs.warnings == ("fleet order 2 dropped: planet 5 is not yours",)


def test_foreign_planets_hide_their_contents():
    """GX-19: only own planets show garrison, production and hold."""
    obs = Observation.from_json(RICH)
    for pid in (2, 11, 16):
        p = obs.planet(pid)
        assert p.garrison is None and p.production is None and p.hold is None
        assert p.ships == Units()


def test_fleets_and_battles_parse():
    obs = Observation.from_json(RICH)
    fleet = obs.fleets[0]
    assert (fleet.id, fleet.from_, fleet.to, fleet.arrives, fleet.turns_left) == (12, 1, 12, 10, 4)
    assert fleet.units == Units(2, 0, 0)
    assert fleet.mle == 8
    battle = obs.battles[0]
    assert (battle.turn, battle.planet, battle.winner, battle.new_owner) == (6, 6, 1, 1)
    mine = battle.side_of(1)
    assert mine is not None and mine.role == "attacker"
    assert mine.before == Units(0, 6, 0) and mine.after == Units(0, 2, 0)
    neutral = battle.side_of(0)
    assert neutral is not None and neutral.before.launchers == 8
    assert battle.side_of(2) is None


def test_battle_without_winner_parses():
    """GX-16: equal survivors destroy each other, so the report may have no winner."""
    raw = copy.deepcopy(RICH)
    raw["battles"][0]["winner"] = None
    raw["battles"][0]["new_owner"] = 0
    assert Observation.from_json(raw).battles[0].winner is None


def test_observation_objects_are_frozen():
    obs = Observation.from_json(RICH)
    with pytest.raises(AttributeError):
        obs.turn = 8  # type: ignore[misc]
    with pytest.raises(AttributeError):
        obs.planets[0].owner = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda o: o.pop("planets"), "observation: missing key 'planets'"),
        (lambda o: o.update(seat=3), "observation.seat: must be 1 or 2"),
        (lambda o: o.update(turn="7"), "observation.turn: expected an integer"),
        (lambda o: o.update(fleets={}), "observation.fleets: expected a list"),
        (lambda o: o["planets"][4].update(owner=True), r"observation.planets\[4\].owner: expected an integer"),
        (lambda o: o["planets"][0]["garrison"].update(cruisers=-1),
         r"observation.planets\[0\].garrison.cruisers: must be at least 0"),
        (lambda o: o["fleets"][0].pop("to"), r"observation.fleets\[0\]: missing key 'to'"),
        (lambda o: o["battles"][0]["sides"][0].update(role=1), r"observation.battles\[0\].sides\[0\].role"),
        (lambda o: o.update(warnings=[3]), r"observation.warnings\[0\]: expected a string"),
    ],
)
def test_malformed_observation_names_the_field(mutate, message):
    raw = copy.deepcopy(RICH)
    mutate(raw)
    with pytest.raises(ValueError, match=message):
        Observation.from_json(raw)


def test_observation_must_be_an_object():
    with pytest.raises(ValueError, match="observation: expected an object, got list"):
        Observation.from_json([])


def test_intel_parses_with_its_turn():
    """GX-9: each report has owner, garrison, production; the library stamps the turn."""
    request = command_request(
        turn=7,
        intel=[{"planet": 7, "owner": 0, "garrison": units(0, 0, 9), "production": units(1, 2, 3)}],
    )
    (report,) = parse_intel(request)
    assert report == Intel(planet=7, owner=0, garrison=Units(0, 0, 9), production=Units(1, 2, 3), turn=7)
    assert report.mle == 9
    assert report.age(10) == 3


def test_bad_intel_is_rejected():
    request = command_request(turn=7, intel=[{"planet": 7, "owner": 0, "garrison": units()}])
    with pytest.raises(ValueError, match=r"intel\[0\]: missing key 'production'"):
        parse_intel(request)


def test_units_arithmetic_and_json():
    a = Units(1, 2, 3)
    assert a.mle == 4 + 4 + 3
    assert a + Units(1, 1, 1) == Units(2, 3, 4)
    assert a - Units(2, 1, 0) == Units(0, 1, 3)  # never below zero
    assert a.times(3) == Units(3, 6, 9)
    assert a.ships == Units(1, 2, 0)
    assert Units().empty and not a.empty
    assert Units.from_json(a.to_json()) == a
    assert Units.from_json({"battleships": 2, "cruisers": 1}) == Units(2, 1, 0)  # a fleet has no launchers


def test_fleet_order_json_matches_schema():
    order = FleetOrder(1, 6, battleships=0, cruisers=10)
    assert order.to_json() == {"from": 1, "to": 6, "battleships": 0, "cruisers": 10}
    assert FleetOrder.of(5, 9, Units(2, 3, 7)).to_json() == {"from": 5, "to": 9, "battleships": 2, "cruisers": 3}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 6, 0, 0), "the fleet is empty"),
        ((1, 1, 0, 3), "'to' equals 'from'"),
        ((1, 6, -1, 3), "FleetOrder.battleships: must be at least 0"),
        ((1, 6, 0, 2.5), "FleetOrder.cruisers: expected an integer"),
        ((True, 6, 0, 2), "FleetOrder.from_: expected an integer"),
    ],
)
def test_fleet_order_rejects_obvious_mistakes(args, message):
    with pytest.raises(ValueError, match=message):
        FleetOrder(*args)


def test_seat_two_sees_its_own_planets():
    obs = Observation.from_json(observation(seat=2))
    assert [p.id for p in obs.my_planets()] == [16]
    assert [p.id for p in obs.enemy_planets()] == [1]
    assert obs.planet(16).garrison == Units(5, 10, 10)
    assert obs.planet(1).garrison is None
