"""ASCII pictures of replays: the Galaxy board of one frame, the rounds of a Mothership battle."""

from __future__ import annotations

import json
from typing import Any

#: Missile Launch Equivalent of each unit (GX-5).
MLE = {"battleships": 4, "cruisers": 2, "launchers": 1}
_CELL = 11
#: Fleets listed under a board; the rest are counted.
MAX_FLEETS_SHOWN = 20
_OWNER = {0: ".", 1: "1", 2: "2"}


def garrison_mle(planet: dict[str, Any]) -> int:
    """MLE of what sits on a planet (GX-5)."""
    return sum(weight * int(planet.get(unit) or 0) for unit, weight in MLE.items())


def galaxy_board(frame: dict[str, Any], names: dict[int, str] | None = None) -> str:
    """The 4x4 grid of one frame: planet id, owner and garrison MLE per cell, then totals and fleets."""
    names = names or {}
    planets = sorted(frame.get("planets", []), key=lambda p: p["id"])
    grid: dict[tuple[int, int], dict[str, Any]] = {(p["row"], p["col"]): p for p in planets}
    rows = 1 + max((r for r, _c in grid), default=3)
    cols = 1 + max((c for _r, c in grid), default=3)
    rule = "+" + "+".join("-" * _CELL for _ in range(cols)) + "+"
    lines = [f"board after turn {frame.get('turn')}  (owner 1, 2 or . neutral; garrison in MLE)", rule]
    for r in range(rows):
        top, bottom = [], []
        for c in range(cols):
            p = grid.get((r, c))
            if p is None:
                top.append(" " * _CELL)
                bottom.append(" " * _CELL)
                continue
            owner = _OWNER.get(int(p.get("owner") or 0), "?")
            top.append(f" {p['id']:>2}  [{owner}]".ljust(_CELL))
            bottom.append(f"{garrison_mle(p):>{_CELL - 3}}   ")
        lines += ["|" + "|".join(top) + "|", "|" + "|".join(bottom) + "|", rule]
    counts = frame.get("planet_count") or {}
    power = frame.get("mle") or {}
    for seat in (1, 2):
        label = f"seat {seat}" + (f" ({names[seat]})" if names.get(seat) else "")
        count = counts.get(str(seat), "?")
        noun = "planet" if count == 1 else "planets"
        lines.append(f"{label}: {count} {noun}, total MLE {power.get(str(seat), '?')}")
    fleets = frame.get("fleets") or []
    if fleets:
        lines.append(f"fleets in flight ({len(fleets)}):")
        ordered = sorted(fleets, key=lambda f: (f.get("arrives", 0), f.get("id", 0)))
        for f in ordered[:MAX_FLEETS_SHOWN]:
            lines.append(f"  #{f.get('id')} seat {f.get('owner')}: {f.get('from')} -> {f.get('to')}, "
                         f"{f.get('battleships')} battleships {f.get('cruisers')} cruisers, "
                         f"arrives in turn {f.get('arrives')}")
        if len(ordered) > MAX_FLEETS_SHOWN:
            lines.append(f"  ... and {len(ordered) - MAX_FLEETS_SHOWN} more (see --json)")
    else:
        lines.append("no fleets in flight")
    return "\n".join(lines)


def mothership_rounds(replay: dict[str, Any], names: dict[int, str] | None = None) -> str:
    """A Mothership battle: both races' orders, then each round's shots and boards (MD-4..MD-7)."""
    names = names or {}
    lines = ["orders (fighter attack/defence and pattern):"]
    steps = replay.get("steps", [])
    for step in steps:
        for seat, answer in sorted(step.get("answers", {}).items()):
            lines.append(f"  seat {seat}{_name(names, int(seat))}: {_orders_text(answer)}")
    rounds = [e for step in steps for e in step.get("events", []) if isinstance(e, dict) and e.get("type") == "round"]
    if not rounds:
        lines.append("no rounds fought")
        return "\n".join(lines)
    lines += ["", "rounds (shot strength per fighter, x = destroyed its target, M = hit the mothership,",
              "- = did not fire; then the board after the round: mothership defence, fighters attack/defence):"]
    for event in rounds:
        for side in event.get("sides", []):
            head = f"  round {event.get('round'):>3}" if side is event["sides"][0] else " " * 11
            shots = _shots_text(side.get("shots", []), len(side.get("fighters", [])))
            board = " ".join(f"{f.get('attack')}/{f.get('defence')}" for f in side.get("fighters", []))
            lines.append(f"{head}  seat {side.get('seat')}: {shots:<20} mothership {side.get('mothership'):>3}"
                         f"  fighters {board}")
    return "\n".join(lines)


def _name(names: dict[int, str], seat: int) -> str:
    return f" ({names[seat]})" if names.get(seat) else ""


def _orders_text(answer: Any) -> str:
    if not isinstance(answer, dict):
        return "(no orders)"
    ms = answer.get("mothership")
    fighters = answer.get("fighters")
    if not isinstance(ms, dict) or not isinstance(fighters, list):
        return f"(malformed orders) {json.dumps(answer, sort_keys=True)[:200]}"
    parts = []
    for f in fighters:
        if isinstance(f, dict):
            pattern = f.get("pattern")
            shown = ",".join(str(x) for x in pattern) if isinstance(pattern, list) else str(pattern)
            parts.append(f"{f.get('attack')}/{f.get('defence')} [{shown}]")
        else:
            parts.append(str(f))
    return f"mothership {ms.get('defence')} | " + "  ".join(parts)


def _shots_text(shots: list[dict[str, Any]], fighters: int) -> str:
    by_fighter = {s.get("fighter"): s for s in shots if isinstance(s, dict)}
    cells = []
    for i in range(1, max(fighters, len(by_fighter)) + 1):
        shot = by_fighter.get(i)
        if shot is None:
            cells.append("-")
            continue
        mark = ("M" if shot.get("target") == "mothership" else "") + ("x" if shot.get("destroyed") else "")
        cells.append(f"{shot.get('strength')}{mark}")
    return " ".join(cells)
