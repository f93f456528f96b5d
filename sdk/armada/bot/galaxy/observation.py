"""The typed Galaxy observation: what a player sees at the start of a turn (GX-19)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armada.bot.galaxy import grid
from armada.bot.galaxy.messages import BattleReport, Fleet, Planet, Units
from armada.bot.galaxy.parse import int_field, need_dict, need_key, need_list, str_list

PlanetRef = int | Planet


def _id(planet: PlanetRef) -> int:
    return planet.id if isinstance(planet, Planet) else planet


@dataclass(frozen=True)
class Observation:
    """One turn's view for one seat, parsed from the `observation` of a scout request.

    `planets` holds all 16 planets ordered by id; `fleets` only your own fleets in flight;
    `battles` the battles of the previous turn your forces fought; `warnings` what the
    engine dropped from your previous command (GX-10). Helper methods accept planet ids or
    `Planet` objects.
    """

    turn: int
    max_turns: int
    seat: int
    probes: int
    planets: tuple[Planet, ...]
    fleets: tuple[Fleet, ...]
    battles: tuple[BattleReport, ...]
    warnings: tuple[str, ...]
    #: Milliseconds left in your time bank at this request (None when the request had no bank_ms).
    bank_ms: int | None = None
    _by_id: dict[int, Planet] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {p.id: p for p in self.planets})

    # --- parsing -------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: Any, bank_ms: int | None = None) -> Observation:
        """Read the raw observation dict; a malformed one raises ValueError naming the bad field."""
        where = "observation"
        d = need_dict(data, where)
        seat = int_field(d, "seat", where)
        if seat not in (1, 2):
            raise ValueError(f"{where}.seat: must be 1 or 2, got {seat}")
        planets = need_list(need_key(d, "planets", where), f"{where}.planets")
        fleets = need_list(need_key(d, "fleets", where), f"{where}.fleets")
        battles = need_list(need_key(d, "battles", where), f"{where}.battles")
        return cls(
            turn=int_field(d, "turn", where, minimum=1),
            max_turns=int_field(d, "max_turns", where, minimum=1),
            seat=seat,
            probes=int_field(d, "probes", where, minimum=0),
            planets=tuple(Planet.from_json(p, seat, f"{where}.planets[{i}]") for i, p in enumerate(planets)),
            fleets=tuple(Fleet.from_json(f, f"{where}.fleets[{i}]") for i, f in enumerate(fleets)),
            battles=tuple(BattleReport.from_json(b, f"{where}.battles[{i}]") for i, b in enumerate(battles)),
            warnings=str_list(need_key(d, "warnings", where), f"{where}.warnings"),
            bank_ms=bank_ms,
        )

    # --- who is who ----------------------------------------------------------------
    @property
    def enemy_seat(self) -> int:
        return 3 - self.seat

    @property
    def home(self) -> int:
        """Id of your home planet (GX-1); you may have lost it."""
        return grid.home(self.seat)

    @property
    def enemy_home(self) -> int:
        return grid.home(self.enemy_seat)

    @property
    def turns_left(self) -> int:
        """Turns still to play, this one included."""
        return self.max_turns - self.turn + 1

    def planet(self, planet_id: int) -> Planet:
        """The planet with this id; KeyError with a clear message if there is none."""
        try:
            return self._by_id[planet_id]
        except KeyError:
            raise KeyError(f"no planet {planet_id!r} in this observation") from None

    def my_planets(self) -> list[Planet]:
        return [p for p in self.planets if p.is_mine]

    def enemy_planets(self) -> list[Planet]:
        return [p for p in self.planets if p.is_enemy]

    def neutral_planets(self) -> list[Planet]:
        return [p for p in self.planets if p.is_neutral]

    def incoming(self, planet: PlanetRef) -> list[Fleet]:
        """Your fleets in flight to this planet, soonest arrival first."""
        target = _id(planet)
        return sorted((f for f in self.fleets if f.to == target), key=lambda f: (f.arrives, f.id))

    def my_mle(self) -> int:
        """Total MLE of your garrisons and fleets in flight (the GX-21 tie-break figure)."""
        garrisons = sum(p.garrison.mle for p in self.my_planets() if p.garrison is not None)
        return garrisons + sum(f.mle for f in self.fleets)

    # --- geometry (GX-2, GX-6, GX-11) ---------------------------------------------------
    def distance(self, a: PlanetRef, b: PlanetRef) -> int:
        """Chebyshev distance (GX-2)."""
        return grid.distance(_id(a), _id(b))

    def travel_time(self, a: PlanetRef, b: PlanetRef, battleships: int | bool = 0) -> int:
        """Turns from a to b; twice the distance when the fleet has battleships (GX-6)."""
        return grid.travel_time(_id(a), _id(b), battleships)

    def arrival_turn(self, a: PlanetRef, b: PlanetRef, battleships: int | bool = 0) -> int:
        """Turn a fleet launched now from a lands at b (GX-11)."""
        return grid.arrival_turn(self.turn, _id(a), _id(b), battleships)

    def path(self, a: PlanetRef, b: PlanetRef) -> list[int]:
        """Planets on the way from a to b, diagonal steps first (GX-11)."""
        return grid.path(_id(a), _id(b))

    def nearest(self, origin: PlanetRef, planets: list[Planet]) -> list[Planet]:
        """`planets` sorted by distance from `origin`, ties by relative id (the same for both seats)."""
        return sorted(planets, key=lambda p: (self.distance(origin, p), self.relative(p)))

    # --- seat-neutral ids (GX-4: planet k and 17 - k mirror each other) -------------------
    def relative(self, planet: PlanetRef) -> int:
        """The planet's id as seat 1 would see it: the id itself for seat 1, `mirror(id)` for seat 2.

        Your home is always relative planet 1 and the enemy's 16, so a bot that breaks ties or
        keeps tables by relative id plays the same from both seats.
        """
        pid = _id(planet)
        return pid if self.seat == 1 else grid.mirror(pid)

    def absolute(self, relative_id: int) -> int:
        """The real id of a relative id (the inverse of `relative`)."""
        return relative_id if self.seat == 1 else grid.mirror(relative_id)

    @staticmethod
    def mle(battleships: int = 0, cruisers: int = 0, launchers: int = 0) -> int:
        """Missile Launch Equivalent (GX-5)."""
        return Units(battleships, cruisers, launchers).mle
