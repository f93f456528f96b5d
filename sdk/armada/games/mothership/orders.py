"""Checking a race's orders (MD-1, MD-2) and turning them into compact tuples for the battle.

Orders arrive as the protocol's reply object:
`{"mothership": {"defence": 40}, "fighters": [{"attack": 7, "defence": 5, "pattern": [2, 2, 3]}, ...]}`.
Every problem is one line naming the field, with list indices counted from 0
(`fighters[2]` is the fighter at position 3).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from armada.games.mothership.config import DEFAULT_CONFIG, FIGHTERS, MothershipConfig
from armada.games.rng import Rng

_TOP = ("mothership", "fighters")
#: Top-level keys that are never orders: the bot's drawing (armada.drawing, D-R-16), which the
#: referee takes out before the orders are read; here too, so that no caller can make it invalid.
_NOT_ORDERS = frozenset({"debug"})
_FIGHTER = ("attack", "defence", "pattern")


class FighterOrders(NamedTuple):
    """One fighter's allocation and attack pattern."""

    attack: int
    defence: int
    pattern: tuple[int, ...]


class RaceOrders(NamedTuple):
    """Valid orders of one race: mothership defence and five fighters (positions 1..5)."""

    mothership: int
    fighters: tuple[FighterOrders, ...]

    def points_used(self) -> int:
        """Allocated points: mothership defence plus every fighter's attack and defence (MD-1)."""
        return self.mothership + sum(f.attack + f.defence for f in self.fighters)

    def to_dict(self) -> dict[str, Any]:
        """The orders as the protocol's reply object."""
        return {
            "mothership": {"defence": self.mothership},
            "fighters": [
                {"attack": f.attack, "defence": f.defence, "pattern": list(f.pattern)} for f in self.fighters
            ],
        }


class OrdersError(ValueError):
    """Orders broke MD-1 / MD-2; `problems` lists every problem found, the message shows them all (D-MD-4)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, float):
        return f"{value!r} (a number with a fraction part or decimal point)"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"a string {json.dumps(value[:20])}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    return repr(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_range(value: Any, field: str, bounds: tuple[int, int], problems: list[str]) -> bool:
    lo, hi = bounds
    if not _is_int(value) or not lo <= value <= hi:
        problems.append(f"{field}: must be an integer from {lo} to {hi}, got {_describe(value)}")
        return False
    return True


def _check_fields(obj: dict[str, Any], field: str, allowed: tuple[str, ...], problems: list[str]) -> bool:
    ok = True
    for key in obj:
        if key not in allowed:
            problems.append(f"{field or 'orders'}: unknown field {str(key)[:30]!r} (expected {', '.join(allowed)})")
            ok = False
    for key in allowed:
        if key not in obj:
            problems.append(f"{field + '.' if field else ''}{key}: missing")
            ok = False
    return ok


def _check_pattern(value: Any, field: str, config: MothershipConfig, problems: list[str]) -> bool:
    if not isinstance(value, list) or not value:
        problems.append(f"{field}: must be a non-empty list of integers >= 1, got {_describe(value)}")
        return False
    if len(value) > config.max_pattern:
        problems.append(f"{field}: at most {config.max_pattern} entries allowed, got {len(value)}")
        return False
    bad = [(j, shot) for j, shot in enumerate(value) if not _is_int(shot) or shot < 1]
    for j, shot in bad[:PATTERN_PROBLEMS]:  # every bad entry, as mothership.md says (a trial saw the first only)
        problems.append(f"{field}[{j}]: must be an integer >= 1, got {_describe(shot)}")
    if len(bad) > PATTERN_PROBLEMS:
        problems.append(f"{field}: {len(bad) - PATTERN_PROBLEMS} more entries like these")
    return not bad


#: The bad entries of one pattern named one by one (a pattern has up to max_pattern, 100 by default).
PATTERN_PROBLEMS = 5


#: Fighters of a too long list whose fields are checked too (a list of thousands: not a line each).
CHECKED_FIGHTERS = 2 * FIGHTERS


def check_orders(raw: Any, config: MothershipConfig = DEFAULT_CONFIG) -> list[str]:
    """Every problem of a reply object under MD-1 / MD-2 (empty list: the orders are valid): each
    field given is checked whatever else is wrong (an unknown field beside it, a sixth fighter)."""
    problems: list[str] = []
    if not isinstance(raw, dict):
        return [f"orders: must be an object with fields mothership and fighters, got {_describe(raw)}"]
    raw = {key: value for key, value in raw.items() if key not in _NOT_ORDERS}
    _check_fields(raw, "", _TOP, problems)
    mothership: Any = raw.get("mothership")
    if "mothership" in raw:
        if not isinstance(mothership, dict):
            problems.append(f'mothership: must be an object like {{"defence": 40}}, got {_describe(mothership)}')
        else:
            _check_fields(mothership, "mothership", ("defence",), problems)
            if "defence" in mothership:
                _check_range(mothership["defence"], "mothership.defence", config.mothership_defence, problems)
    fighters: Any = raw.get("fighters")
    if "fighters" in raw:
        if not isinstance(fighters, list) or len(fighters) != FIGHTERS:
            got = f"{len(fighters)} fighters" if isinstance(fighters, list) else _describe(fighters)
            problems.append(f"fighters: must be a list of exactly {FIGHTERS} fighters, got {got}")
        for i, fighter in enumerate(fighters[:CHECKED_FIGHTERS] if isinstance(fighters, list) else []):
            _check_fighter(fighter, f"fighters[{i}]", config, problems)
    _check_budget(mothership, fighters, config, problems)
    return problems


def _check_fighter(fighter: Any, field: str, config: MothershipConfig, problems: list[str]) -> None:
    if not isinstance(fighter, dict):
        problems.append(f"{field}: must be an object with attack, defence, pattern, got {_describe(fighter)}")
        return
    _check_fields(fighter, field, _FIGHTER, problems)
    for key, bounds in (("attack", config.fighter_attack), ("defence", config.fighter_defence)):
        if key in fighter:
            _check_range(fighter[key], f"{field}.{key}", bounds, problems)
    if "pattern" in fighter:
        _check_pattern(fighter["pattern"], f"{field}.pattern", config, problems)


def _check_budget(mothership: Any, fighters: Any, config: MothershipConfig, problems: list[str]) -> None:
    """MD-1's budget, checked even when other fields are wrong: the whole numbers given are summed
    ("at least" when one of them is missing or not a whole number)."""
    given = []

    def number(obj: Any, key: str) -> int:
        value: Any = obj.get(key) if isinstance(obj, dict) else None
        given.append(_is_int(value))
        return int(value) if _is_int(value) else 0

    defence = number(mothership, "defence")
    listed = fighters if isinstance(fighters, list) else []
    attack = sum(number(f, "attack") for f in listed)
    fighter_defence = sum(number(f, "defence") for f in listed)
    used = defence + attack + fighter_defence
    complete = isinstance(fighters, list) and all(given)
    if used > config.total_points:
        problems.append(
            f"points: {'' if complete else 'at least '}{used} allocated, at most {config.total_points} allowed "
            f"(mothership {defence} + fighter attack {attack} + fighter defence {fighter_defence})"
        )


def parse_orders(raw: Any, config: MothershipConfig = DEFAULT_CONFIG) -> RaceOrders:
    """Valid orders as tuples; raises OrdersError listing the problems."""
    if isinstance(raw, RaceOrders):
        raw = raw.to_dict()
    problems = check_orders(raw, config)
    if problems:
        raise OrdersError(problems)
    fighters = tuple(FighterOrders(f["attack"], f["defence"], tuple(f["pattern"])) for f in raw["fighters"])
    return RaceOrders(raw["mothership"]["defence"], fighters)


def random_orders(rng: Rng, config: MothershipConfig = DEFAULT_CONFIG, max_pattern_length: int = 5) -> RaceOrders:
    """Random legal orders: a random budget spread over the 11 allocations with random weights.

    Patterns have 1..max_pattern_length entries (capped by the config) of shots 1..8.
    """
    bounds = [config.mothership_defence] + [config.fighter_attack, config.fighter_defence] * FIGHTERS
    values = [lo for lo, _hi in bounds]
    ceiling = min(config.total_points, sum(hi for _lo, hi in bounds))
    extra = rng.randint(sum(values), ceiling) - sum(values)
    weights = [rng.randint(0, 10) for _ in bounds]
    open_slots = [i for i, (lo, hi) in enumerate(bounds) if lo < hi]
    while extra > 0 and open_slots:
        total = sum(weights[i] for i in open_slots)
        if total == 0:
            slot = rng.choice(open_slots)
        else:
            pick = rng.randrange(total)
            for slot in open_slots:
                pick -= weights[slot]
                if pick < 0:
                    break
        values[slot] += 1
        extra -= 1
        if values[slot] == bounds[slot][1]:
            open_slots.remove(slot)
    length_cap = max(1, min(max_pattern_length, config.max_pattern))
    fighters = []
    for i in range(FIGHTERS):
        attack, defence = values[1 + 2 * i], values[2 + 2 * i]
        pattern = tuple(rng.randint(1, 8) for _ in range(rng.randint(1, length_cap)))
        fighters.append(FighterOrders(attack, defence, pattern))
    return RaceOrders(values[0], tuple(fighters))
