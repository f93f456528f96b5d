"""Reading the seats' replies: wrong shapes are protocol faults (GX-22), bad values warnings (GX-8, GX-10)."""

from __future__ import annotations

from typing import Any

from armada.jsontext import json_type, shown

#: At most this many warnings are kept per seat and phase; the rest are summarised in one line.
MAX_WARNINGS = 20
FLEET_KEYS = ("from", "to", "battleships", "cruisers")
#: Only this many probe targets of a scout reply are read (there are 16 planets): docs/games/galaxy.md.
MAX_PROBE_ITEMS = 32
#: Only this many fleet orders of a command reply are read; the rest are dropped with one warning.
MAX_FLEET_ORDERS = 100


class ReplyShapeError(ValueError):
    """A reply that does not have the shape of docs/games/galaxy-schema.md (a protocol fault)."""


class Warnings:
    """A capped list of warnings for one seat and phase."""

    __slots__ = ("dropped", "items")

    def __init__(self) -> None:
        self.items: list[str] = []
        self.dropped = 0

    def add(self, text: str) -> None:
        if len(self.items) < MAX_WARNINGS:
            self.items.append(text)
        else:
            self.dropped += 1

    def done(self) -> list[str]:
        """The warnings, with a last line counting those left out."""
        if self.dropped:
            return [*self.items, f"... and {self.dropped} more warnings"]
        return self.items


def show(value: Any) -> str:
    """A bot-supplied value as JSON text (true, null, "3"), shortened to 40 characters."""
    return shown(value)


def reply_list(reply: Any, key: str) -> list[Any]:
    """`reply[key]` as a list; a missing key is an empty list; anything but a list is a shape error."""
    if not isinstance(reply, dict):
        raise ReplyShapeError(f"reply must be a JSON object, got {type(reply).__name__}")
    value = reply.get(key, [])
    if not isinstance(value, list):
        raise ReplyShapeError(f"'{key}' must be a list, got {json_type(value)}")
    return value


def read_probes(reply: Any, owners: list[int], seat: int, available: int) -> tuple[list[int], list[str]]:
    """Valid probe targets in the given order and the warnings for the rest (GX-8).

    `owners[i]` is the owner of planet i + 1. Raises ReplyShapeError on a wrong shape.
    """
    items = reply_list(reply, "probes")
    warnings = Warnings()
    if len(items) > MAX_PROBE_ITEMS:
        warnings.add(f"probe targets beyond the first {MAX_PROBE_ITEMS} ignored")  # (uncounted: D-R-21)
        items = items[:MAX_PROBE_ITEMS]
    targets: list[int] = []
    seen: set[int] = set()
    n = len(owners)
    for item in items:
        if type(item) is not int or not 1 <= item <= n:  # a JSON integer (booleans are not)
            warnings.add(f"probe target {show(item)} dropped: not a planet id (1..{n})")
        elif item in seen:
            warnings.add(f"probe target {item} dropped: already probed this turn")
        elif owners[item - 1] == seat:
            warnings.add(f"probe target {item} dropped: it is your own planet")
        elif len(targets) >= available:
            warnings.add(f"probe target {item} dropped: no probe left (you have {available})")
        else:
            targets.append(item)
            seen.add(item)
    return targets, warnings.done()


def read_fleet_items(reply: Any) -> list[dict[str, Any]]:
    """The fleet orders of a command reply; raises ReplyShapeError unless a list of objects.

    Orders beyond MAX_FLEET_ORDERS are not read (`launch` warns about them).
    """
    items = reply_list(reply, "fleets")
    for index, item in enumerate(items[: MAX_FLEET_ORDERS], 1):  # (those beyond are dropped unread: D-R-21)
        if not isinstance(item, dict):
            raise ReplyShapeError(f"fleet order {index} must be a JSON object, got {json_type(item)}")
    return items


#: How much of a bot's value a warning shows (`show`), so how much of it the replay keeps.
SHOWN = 40


def _cut(value: Any, room: int = SHOWN) -> Any:
    """`value` as the replay keeps it: of the same JSON type, with JSON text that begins as `value`'s
    for `room` characters and is longer than `room` when `value`'s is, so every check and every
    warning (`show`) reads it as it read `value`; bounded in size (numbers kept whole)."""
    room = max(room, 0)  # (what is left for a value after a long sibling or key: nothing, never a negative cut)
    if isinstance(value, str):
        return value[:room]
    if isinstance(value, list):
        kept: list[Any] = []
        for item in value:
            used = len(shown(kept, limit=10**9)) - 1  # the text so far, without the closing bracket
            if used >= room:
                break
            kept.append(_cut(item, room - used - (2 if kept else 0)))
        return kept
    if isinstance(value, dict):
        cut: dict[str, Any] = {}
        for key, item in value.items():
            used = len(shown(cut, limit=10**9)) - 1
            if used >= room:
                break
            left = room - used - (2 if cut else 0)
            short = _cut(key, left)
            while short in cut and short != key:  # (a key cut to one already kept: longer, up to itself)
                short = key[:len(short) + 1]
            cut[short] = _cut(item, left - len(shown(short, limit=10**9)) - 2)
        return cut
    return value  # a number, true, false or null


def replay_answer(phase: str, reply: dict[str, Any]) -> dict[str, Any]:
    """What of a reply the replay keeps: only the keys the engine reads, bounded in size.

    Replaying the kept answer gives the same accepted probes and fleets (so the same states).
    """
    if phase == "scout":
        probes = reply.get("probes", [])
        if not isinstance(probes, list):
            return {"probes": _cut(probes)}
        kept = [_cut(item) for item in probes[: MAX_PROBE_ITEMS + 1]]
        return {"probes": kept}
    fleets = reply.get("fleets", [])
    if not isinstance(fleets, list):
        return {"fleets": _cut(fleets)}
    orders: list[Any] = []
    for item in fleets[: MAX_FLEET_ORDERS + 1]:
        if isinstance(item, dict):
            orders.append({key: _cut(item[key]) for key in FLEET_KEYS if key in item})
        else:
            orders.append(_cut(item))
    return {"fleets": orders}


def check_fleet(item: dict[str, Any], owners: list[int], seat: int) -> tuple[int, int, int, int] | str:
    """(from, to, battleships, cruisers) of one order, or why it is dropped (GX-10; stock is checked later).

    Missing counts are 0; missing or bad planet ids are dropped.
    """
    n = len(owners)
    origin: Any = item.get("from")
    target: Any = item.get("to")
    b: Any = item.get("battleships", 0)
    c: Any = item.get("cruisers", 0)
    if type(origin) is not int or not 1 <= origin <= n:
        return f"'from' {show(origin)} is not a planet id (1..{n})"
    if owners[origin - 1] != seat:
        return f"planet {origin} is not yours"
    if type(target) is not int or not 1 <= target <= n:
        return f"'to' {show(target)} is not a planet id (1..{n})"
    if target == origin:
        return f"'to' equals 'from' ({origin})"
    if type(b) is not int or b < 0:
        return f"'battleships' {show(b)} is not a non-negative integer"
    if type(c) is not int or c < 0:
        return f"'cruisers' {show(c)} is not a non-negative integer"
    if b == 0 and c == 0:
        return "the fleet is empty"
    return origin, target, b, c
