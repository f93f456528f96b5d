"""Typed, read-only views of what a Galaxy bot receives, and the order it sends back.

All classes are frozen dataclasses built from the raw JSON of docs/games/galaxy-schema.md
with their `from_json` class methods; rule numbers (GX-n) refer to docs/games/galaxy.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from armada.bot.base import plain_int
from armada.bot.galaxy.parse import (
    int_field,
    need_dict,
    need_int,
    need_key,
    need_list,
    optional_int,
)

#: Missile Launch Equivalent of each unit type (GX-5).
MLE_BATTLESHIP = 4
MLE_CRUISER = 2
MLE_LAUNCHER = 1


def mle(battleships: int = 0, cruisers: int = 0, launchers: int = 0) -> int:
    """Missile Launch Equivalent: 4 per battleship, 2 per cruiser, 1 per launcher (GX-5)."""
    return MLE_BATTLESHIP * battleships + MLE_CRUISER * cruisers + MLE_LAUNCHER * launchers


@dataclass(frozen=True)
class Units:
    """A group of units: a garrison, a production rate, a fleet, one side of a battle."""

    battleships: int = 0
    cruisers: int = 0
    launchers: int = 0

    @property
    def mle(self) -> int:
        """Missile Launch Equivalent of the whole group (GX-5)."""
        return mle(self.battleships, self.cruisers, self.launchers)

    @property
    def ships(self) -> Units:
        """Only the units that can move (battleships and cruisers; launchers never move, GX-6)."""
        return Units(self.battleships, self.cruisers, 0)

    @property
    def empty(self) -> bool:
        """True when the group holds no unit at all."""
        return self.battleships == 0 and self.cruisers == 0 and self.launchers == 0

    def __add__(self, other: Units) -> Units:
        return Units(
            self.battleships + other.battleships,
            self.cruisers + other.cruisers,
            self.launchers + other.launchers,
        )

    def __sub__(self, other: Units) -> Units:
        """Difference, never below zero per unit type."""
        return Units(
            max(0, self.battleships - other.battleships),
            max(0, self.cruisers - other.cruisers),
            max(0, self.launchers - other.launchers),
        )

    def times(self, factor: int) -> Units:
        """Every count multiplied by `factor` (e.g. a production rate over several turns)."""
        return Units(self.battleships * factor, self.cruisers * factor, self.launchers * factor)

    def to_json(self) -> dict[str, int]:
        return {"battleships": self.battleships, "cruisers": self.cruisers, "launchers": self.launchers}

    @classmethod
    def from_json(cls, data: Any, where: str = "units") -> Units:
        """Read {"battleships", "cruisers", "launchers"}; a missing "launchers" (a fleet) counts as 0."""
        d = need_dict(data, where)
        launchers = d.get("launchers", 0)
        return cls(
            int_field(d, "battleships", where, minimum=0),
            int_field(d, "cruisers", where, minimum=0),
            need_int(launchers, f"{where}.launchers", minimum=0),
        )


def _optional_units(data: dict[str, Any], key: str, where: str) -> Units | None:
    value = data.get(key)
    return None if value is None else Units.from_json(value, f"{where}.{key}")


@dataclass(frozen=True)
class Planet:
    """One planet as the observer sees it (GX-19).

    `garrison` (ships and launchers), `production` (rate per turn, hold bonus included) and
    `hold` (turns held) are known only for the observer's own planets; for the others they
    are None: use probe intel (`Intel`) to look inside.
    """

    id: int
    row: int
    col: int
    owner: int
    garrison: Units | None
    production: Units | None
    hold: int | None
    #: The observer's seat, so that `is_mine` / `is_enemy` work on their own.
    seat: int

    @property
    def is_mine(self) -> bool:
        return self.owner == self.seat

    @property
    def is_neutral(self) -> bool:
        return self.owner == 0

    @property
    def is_enemy(self) -> bool:
        return self.owner not in (0, self.seat)

    @property
    def ships(self) -> Units:
        """The movable part of an own planet's garrison (no launchers); empty if not known."""
        return self.garrison.ships if self.garrison is not None else Units()

    @classmethod
    def from_json(cls, data: Any, seat: int, where: str = "planet") -> Planet:
        d = need_dict(data, where)
        return cls(
            id=int_field(d, "id", where, minimum=1),
            row=int_field(d, "row", where, minimum=0),
            col=int_field(d, "col", where, minimum=0),
            owner=int_field(d, "owner", where, minimum=0),
            garrison=_optional_units(d, "garrison", where),
            production=_optional_units(d, "production", where),
            hold=optional_int(d, "hold", where),
            seat=seat,
        )


@dataclass(frozen=True)
class Fleet:
    """One of the observer's own fleets in flight (enemy fleets are never visible, GX-19).

    It lands in the arrival step of turn `arrives`; `turns_left` counts that turn (1 means
    it lands this turn).
    """

    id: int
    from_: int
    to: int
    battleships: int
    cruisers: int
    launched: int
    arrives: int
    turns_left: int

    @property
    def units(self) -> Units:
        return Units(self.battleships, self.cruisers, 0)

    @property
    def mle(self) -> int:
        return mle(self.battleships, self.cruisers)

    @classmethod
    def from_json(cls, data: Any, where: str = "fleet") -> Fleet:
        d = need_dict(data, where)
        return cls(
            id=int_field(d, "id", where),
            from_=int_field(d, "from", where, minimum=1),
            to=int_field(d, "to", where, minimum=1),
            battleships=int_field(d, "battleships", where, minimum=0),
            cruisers=int_field(d, "cruisers", where, minimum=0),
            launched=int_field(d, "launched", where),
            arrives=int_field(d, "arrives", where),
            turns_left=int_field(d, "turns_left", where),
        )


@dataclass(frozen=True)
class BattleSide:
    """One force in a battle: owner (0 = neutral), role ("attacker"/"defender"), units before and after."""

    owner: int
    role: str
    before: Units
    after: Units

    @classmethod
    def from_json(cls, data: Any, where: str = "side") -> BattleSide:
        d = need_dict(data, where)
        role = need_key(d, "role", where)
        if not isinstance(role, str):
            raise ValueError(f"{where}.role: expected a string, got {role!r}")
        return cls(
            owner=int_field(d, "owner", where, minimum=0),
            role=role,
            before=Units.from_json(need_key(d, "before", where), f"{where}.before"),
            after=Units.from_json(need_key(d, "after", where), f"{where}.after"),
        )


@dataclass(frozen=True)
class BattleReport:
    """A battle of the previous turn that involved the observer (GX-19).

    `winner` is the winning owner (None when nobody won, e.g. equal forces in GX-16);
    `new_owner` the planet's owner after the battle.
    """

    turn: int
    planet: int
    sides: tuple[BattleSide, ...]
    winner: int | None
    new_owner: int

    def side_of(self, owner: int) -> BattleSide | None:
        """The force of `owner` in this battle (the first one if several), or None."""
        return next((s for s in self.sides if s.owner == owner), None)

    @classmethod
    def from_json(cls, data: Any, where: str = "battle") -> BattleReport:
        d = need_dict(data, where)
        sides = need_list(need_key(d, "sides", where), f"{where}.sides")
        return cls(
            turn=int_field(d, "turn", where),
            planet=int_field(d, "planet", where, minimum=1),
            sides=tuple(BattleSide.from_json(s, f"{where}.sides[{i}]") for i, s in enumerate(sides)),
            winner=optional_int(d, "winner", where),
            new_owner=int_field(d, "new_owner", where, minimum=0),
        )


@dataclass(frozen=True)
class Intel:
    """A probe report of the current turn (GX-9): what is on `planet` right now.

    `production` is the current rate of an owned planet, or the potential rate a neutral
    planet will have once captured. `turn` is the turn the report was taken, so a bot that
    keeps old reports knows their age.
    """

    planet: int
    owner: int
    garrison: Units
    production: Units
    turn: int

    @property
    def mle(self) -> int:
        """Defence of the planet at the time of the report (GX-13)."""
        return self.garrison.mle

    def age(self, now: int) -> int:
        """How many turns old this report is at turn `now`."""
        return now - self.turn

    @classmethod
    def from_json(cls, data: Any, turn: int, where: str = "intel") -> Intel:
        d = need_dict(data, where)
        return cls(
            planet=int_field(d, "planet", where, minimum=1),
            owner=int_field(d, "owner", where, minimum=0),
            garrison=Units.from_json(need_key(d, "garrison", where), f"{where}.garrison"),
            production=Units.from_json(need_key(d, "production", where), f"{where}.production"),
            turn=turn,
        )


@dataclass(frozen=True)
class FleetOrder:
    """Send `battleships` and `cruisers` from own planet `from_` to planet `to` (GX-10).

    Obviously malformed orders (non-integers, negative counts, an empty fleet, `to` equal to
    `from_`) raise ValueError at once, so a mistake shows in the bot's log with its cause.
    Orders the engine cannot carry out (not your planet, not enough ships) are dropped by
    the engine and reported back as warnings.
    """

    from_: int
    to: int
    battleships: int = 0
    cruisers: int = 0

    def __post_init__(self) -> None:
        for name in ("from_", "to", "battleships", "cruisers"):
            object.__setattr__(self, name, plain_int(getattr(self, name)))  # numpy's integers too
            need_int(getattr(self, name), f"FleetOrder.{name}", minimum=0)
        if self.battleships == 0 and self.cruisers == 0:
            raise ValueError(f"FleetOrder {self.from_}->{self.to}: the fleet is empty")
        if self.from_ == self.to:
            raise ValueError(f"FleetOrder {self.from_}->{self.to}: 'to' equals 'from'")

    @property
    def units(self) -> Units:
        return Units(self.battleships, self.cruisers, 0)

    def to_json(self) -> dict[str, int]:
        return {"from": self.from_, "to": self.to, "battleships": self.battleships, "cruisers": self.cruisers}

    @classmethod
    def of(cls, from_: int, to: int, units: Units) -> FleetOrder:
        """An order moving the ships of `units` (its launchers are ignored: they never move)."""
        return cls(from_, to, units.battleships, units.cruisers)
