"""One command phase: launches (GX-10, GX-11), arrivals and battles (GX-12..GX-16),
production (GX-17), neutral growth (GX-18) and the end of the game (GX-20, GX-21)."""

from __future__ import annotations

from typing import Any

from armada.games.base import Result
from armada.games.galaxy.battle import NONE, Units, contest, fight
from armada.games.galaxy.geometry import DIST
from armada.games.galaxy.orders import MAX_FLEET_ORDERS, Warnings, check_fleet
from armada.games.galaxy.setup import NEUTRAL_PAIRS
from armada.games.galaxy.state import Fleet, GalaxyState, Planet
from armada.games.rng import Rng

Event = dict[str, Any]


def units_dict(units: Units) -> dict[str, int]:
    """A unit triple as the schema's object."""
    return {"battleships": units[0], "cruisers": units[1], "launchers": units[2]}


def launch(state: GalaxyState, seat: int, items: list[dict[str, Any]], events: list[Event]) -> list[str]:
    """Accept a seat's fleet orders in order, send them off at once; return the warnings (GX-10, GX-11)."""
    warnings = Warnings()
    planets = state.planets
    owners = [p.owner for p in planets]
    turn = state.turn
    fleets = state.fleets
    count = state.fleet_counts[seat]
    if len(items) > MAX_FLEET_ORDERS:
        warnings.add(f"fleet orders beyond the first {MAX_FLEET_ORDERS} dropped")  # (uncounted: D-R-21)
        items = items[:MAX_FLEET_ORDERS]
    for index, item in enumerate(items, 1):
        checked = check_fleet(item, owners, seat)
        if isinstance(checked, str):
            warnings.add(f"fleet order {index} dropped: {checked}")
            continue
        origin, target, b, c = checked
        planet = planets[origin - 1]
        if b > planet.battleships or c > planet.cruisers:
            warnings.add(
                f"fleet order {index} dropped: it needs {b} battleships and {c} cruisers, planet {origin} "
                f"has {planet.battleships} and {planet.cruisers} left"
            )
            continue
        planet.battleships -= b
        planet.cruisers -= c
        arrives = turn + DIST[origin][target] * (2 if b else 1) - 1
        count += 1
        # ids are odd for seat 1 and even for seat 2, so they reveal nothing of the other seat (GX-19)
        fid = 2 * count - 2 + seat
        fleets.append(Fleet(fid, seat, origin, target, b, c, turn, arrives))
        events.append(
            {
                "type": "launch",
                "fleet": {
                    "id": fid,
                    "owner": seat,
                    "from": origin,
                    "to": target,
                    "battleships": b,
                    "cruisers": c,
                    "launched": turn,
                    "arrives": arrives,
                },
            }
        )
    state.fleet_counts[seat] = count
    return warnings.done()


def _side(owner: int, role: str, before: Units, after: Units) -> dict[str, Any]:
    """One side of a battle event (the unit objects written out: this runs for every battle)."""
    return {
        "owner": owner,
        "role": role,
        "before": {"battleships": before[0], "cruisers": before[1], "launchers": before[2]},
        "after": {"battleships": after[0], "cruisers": after[1], "launchers": after[2]},
    }


def _capture(planet: Planet, seat: int, survivors: Units, events: list[Event]) -> None:
    """The attacker takes the planet: survivors stay, no launchers, hold restarts (GX-15)."""
    events.append({"type": "capture", "planet": planet.id, "owner": seat, "previous": planet.owner})
    planet.owner = seat
    planet.battleships, planet.cruisers, planet.launchers = survivors[0], survivors[1], 0
    planet.hold = 0


def _battle_event(
    state: GalaxyState, planet: Planet, sides: list[dict[str, Any]], winner: int | None, seats: list[int]
) -> Event:
    return {
        "type": "battle",
        "turn": state.turn,
        "planet": planet.id,
        "sides": sides,
        "winner": winner,
        "new_owner": planet.owner,
        "seats": seats,
    }


def resolve_planet(state: GalaxyState, planet: Planet, forces: dict[int, Units], events: list[Event]) -> None:
    """All fleets landing on one planet this turn (GX-12), with the battle they cause (GX-13..GX-16)."""
    owner = planet.owner
    if owner:
        if owner in forces:  # the owner's fleets join the garrison first
            planet.battleships += forces[owner][0]
            planet.cruisers += forces[owner][1]
        enemy = 3 - owner
        if enemy not in forces:
            return
        attacker = forces[enemy]
        garrison = (planet.battleships, planet.cruisers, planet.launchers)
        won, att_after, def_after = fight(attacker, garrison)
        sides = [_side(enemy, "attacker", attacker, att_after), _side(owner, "defender", garrison, def_after)]
        if won:
            _capture(planet, enemy, att_after, events)
        else:
            planet.battleships, planet.cruisers, planet.launchers = def_after
        events.append(_battle_event(state, planet, sides, enemy if won else owner, [enemy, owner]))
        return
    launchers = planet.launchers
    if len(forces) == 1:
        ((seat, attacker),) = forces.items()
        won, att_after, def_after = fight(attacker, (0, 0, launchers))
        sides = [_side(seat, "attacker", attacker, att_after), _side(0, "defender", (0, 0, launchers), def_after)]
        if won:
            _capture(planet, seat, att_after, events)
        else:
            planet.launchers = def_after[2]
        events.append(_battle_event(state, planet, sides, seat if won else 0, [seat]))
        return
    result = contest(launchers, forces, lambda: state.rng.randint(1, 2))  # the draw lands in the event
    if result.owner:
        _capture(planet, result.owner, result.garrison, events)
    else:
        planet.launchers = result.garrison[2]
    left = planet.launchers if planet.owner == 0 else 0
    sides = [
        _side(1, "attacker", forces[1], result.after[1]),
        _side(2, "attacker", forces[2], result.after[2]),
        _side(0, "defender", (0, 0, launchers), (0, 0, left)),
    ]
    if result.owner:
        winner: int | None = result.owner
    else:
        winner = None if result.final is not None else 0
    event = _battle_event(state, planet, sides, winner, [1, 2])
    event["contest"] = {
        "split": [result.split[1], result.split[2]],
        "draw": result.drawn,
        "halves": [
            {
                "seat": s,
                "launchers": result.split[s],
                "won": result.half_won[s],
                "after": units_dict(result.half_after[s]),
                "launchers_left": result.launchers_left[s],
            }
            for s in (1, 2)
        ],
        "final": None if result.final is None else [units_dict(result.final[0]), units_dict(result.final[1])],
    }
    events.append(event)


def arrivals(state: GalaxyState, events: list[Event]) -> None:
    """Land every fleet due this turn and fight the battles, planet by planet (GX-12)."""
    turn = state.turn
    landing: dict[int, dict[int, Units]] = {}  # planet -> seat -> (battleships, cruisers, 0) landing
    flying = []
    for fleet in state.fleets:
        if fleet.arrives != turn:
            flying.append(fleet)
            continue
        target, owner = fleet.target, fleet.owner
        events.append({"type": "arrival", "fleet": fleet.id, "owner": owner, "planet": target})
        forces = landing.get(target)
        if forces is None:
            forces = landing[target] = {}
        b, c, _ = forces.get(owner, NONE)
        forces[owner] = (b + fleet.battleships, c + fleet.cruisers, 0)
    if not landing:
        return
    state.fleets = flying
    planets = state.planets
    for pid in sorted(landing):
        resolve_planet(state, planets[pid - 1], landing[pid], events)


def production(state: GalaxyState, events: list[Event]) -> None:
    """Every owned planet adds base + 2 x floor(hold / 5) of each unit, then hold grows (GX-17)."""
    made = []
    for planet in state.planets:
        owner = planet.owner
        if not owner:
            continue
        hold = planet.hold
        bonus = 2 * (hold // 5)
        b, c, n = planet.base
        b += bonus
        c += bonus
        n += bonus
        planet.battleships += b
        planet.cruisers += c
        planet.launchers += n
        planet.hold = hold + 1
        made.append([planet.id, owner, b, c, n])
    events.append({"type": "production", "planets": made})


def growth_draws(rng: Rng, lo: int, hi: int, count: int) -> list[int]:
    """`count` independent uniform draws in lo..hi taken from one generator call (the digits of one
    uniform number below (hi - lo + 1) ** count); no call at all when lo == hi."""
    size = hi - lo + 1
    if size == 1:
        return [lo] * count
    x = rng.randrange(size**count)
    draws = []
    for _ in range(count):
        x, digit = divmod(x, size)
        draws.append(lo + digit)
    return draws


def growth(state: GalaxyState, events: list[Event]) -> None:
    """One draw per neutral pair every turn; each neutral planet of the pair gains it (GX-4, GX-18)."""
    lo, hi = state.config.neutral_growth
    draws = growth_draws(state.rng, lo, hi, len(NEUTRAL_PAIRS))
    grown = []
    for planet in state.planets:
        if planet.owner == 0 and planet.growth_pair >= 0:  # a neutral home (a loaded state) has no pair
            gain = draws[planet.growth_pair]
            planet.launchers += gain
            grown.append([planet.id, gain])
    events.append({"type": "growth", "draws": draws, "planets": grown})


def totals(state: GalaxyState) -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
    """Per seat: planets owned, fleets in flight, total MLE (garrisons, launchers, fleets; GX-21)."""
    planets = {1: 0, 2: 0}
    fleets = {1: 0, 2: 0}
    power = {1: 0, 2: 0}
    for p in state.planets:
        if p.owner:
            planets[p.owner] += 1
            power[p.owner] += 4 * p.battleships + 2 * p.cruisers + p.launchers
    for f in state.fleets:
        fleets[f.owner] += 1
        power[f.owner] += 4 * f.battleships + 2 * f.cruisers
    return planets, fleets, power


def scores(planets: dict[int, int], power: dict[int, int]) -> dict[str, Any]:
    """Result.scores for display."""
    return {"planets": {"1": planets[1], "2": planets[2]}, "mle": {"1": power[1], "2": power[2]}}


def end_of_turn(state: GalaxyState, events: list[Event]) -> Result | None:
    """Elimination (GX-20), then the turn limit (GX-21); None while the game goes on."""
    turn = state.turn
    if turn < state.config.max_turns:  # fast path: both seats still own a planet
        owners = {p.owner for p in state.planets}
        if 1 in owners and 2 in owners:
            return None
    planets, fleets, power = totals(state)
    out = [seat for seat in (1, 2) if planets[seat] == 0 and fleets[seat] == 0]
    if out:
        events.append({"type": "elimination", "seats": out})
        if len(out) == 2:
            return Result(None, "draw", turn, scores(planets, power))
        return Result(3 - out[0], "elimination", turn, scores(planets, power))
    if turn < state.config.max_turns:
        return None
    if planets[1] != planets[2]:
        winner: int | None = 1 if planets[1] > planets[2] else 2
    elif power[1] != power[2]:
        winner = 1 if power[1] > power[2] else 2
    else:
        winner = None
    return Result(winner, "turn_limit" if winner else "draw", turn, scores(planets, power))


def command_phase(state: GalaxyState, orders: dict[int, list[dict[str, Any]]]) -> list[Event]:
    """Play the rest of the turn from both seats' (well-shaped) fleet orders; advance to the next turn."""
    events: list[Event] = []
    for seat in (1, 2):
        state.order_warnings[seat] = launch(state, seat, orders[seat], events)
        if state.order_warnings[seat]:
            events.append(
                {"type": "warnings", "seat": seat, "phase": "command", "warnings": state.order_warnings[seat]}
            )
    arrivals(state, events)
    state.battles = [e for e in events if e["type"] == "battle"]
    production(state, events)
    growth(state, events)
    result = end_of_turn(state, events)
    if result is not None:
        state.result = result
        state.phase = "over"
        events.append({"type": "game_over", "result": result.to_dict()})
    else:
        state.turn += 1
        state.phase = "scout"
    return events
