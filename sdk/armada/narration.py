"""A game's narration: what happened, event by event, read from a replay (`replay_events`), in words.

One `Event` per battle, capture, launch, probe report, warning, fault and end of game
(Galaxy), per round and fault (Mothership), each with its turn, the seats it concerns, a
kind and one line of text. `armada replay --turn N / --events` prints them, and the match
summaries count the warnings (GX-8, GX-10) with `warning_counts`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from armada.games.registry import UnknownGame, get_game

#: Every kind of event, in the order a turn shows them.
KINDS: tuple[str, ...] = ("probe", "warning", "launch", "battle", "capture", "round", "fault", "elimination",
                          "game_over")
_MORE = re.compile(r"^\.\.\. and (\d+) more warnings$")


@dataclass(frozen=True)
class Event:
    """One thing that happened: Galaxy turn (None in Mothership), seats concerned, kind, text, raw event."""

    turn: int | None
    seats: tuple[int, ...]
    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "seats": list(self.seats), "kind": self.kind, "text": self.text}


def units(side: dict[str, Any] | None) -> str:
    """`2b 3c 0l (14 MLE)`: battleships, cruisers, launchers and their MLE (GX-5)."""
    side = side or {}
    b, c, n = (int(side.get(k, 0)) for k in ("battleships", "cruisers", "launchers"))
    return f"{b}b {c}c {n}l ({4 * b + 2 * c + n} MLE)"


def who(owner: Any) -> str:
    return f"seat {owner}" if owner in (1, 2) else "neutral"


def _battle(turn: int | None, event: dict[str, Any]) -> Event:
    sides = "; ".join(f"{side.get('role')} {who(side.get('owner'))} {units(side.get('before'))} -> "
                      f"{units(side.get('after'))}" for side in event.get("sides", []))
    winner = event.get("winner")
    outcome = "both attackers destroyed" if winner is None else f"won by {who(winner)}"
    draw = (event.get("contest") or {}).get("draw")
    if draw is not None:
        outcome += f" (tie draw: {draw})"
    seats = tuple(s for s in event.get("seats", []) if s in (1, 2))
    return Event(turn, seats, "battle", f"battle at planet {event.get('planet')}: {sides}; {outcome}", event)


def _seat(value: Any) -> int:
    """A seat number from an event (0 when it has none)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass(frozen=True)
class _Seats:
    """What the result lines need of the match: each seat's bot name, and what `turns` counts."""

    names: dict[int, str]
    turns_label: str = "turns"

    def name(self, seat: int) -> str:
        """`seat 1 (Greedy)`, or `seat 1` when the replay names no bot there."""
        return f"seat {seat} ({self.names[seat]})" if self.names.get(seat) else f"seat {seat}"


def _galaxy(turn: int | None, phase: str, event: dict[str, Any], seats_: _Seats) -> list[Event]:
    kind = event.get("type")
    seat = _seat(event.get("seat"))
    if kind == "probes":
        out = [Event(turn, (seat,), "probe",
                     f"seat {seat} probes planet {report.get('planet')}: {who(report.get('owner'))}, "
                     f"{units(report.get('garrison'))}, production {units(report.get('production'))}", report)
               for report in event.get("intel", [])]
        out += [Event(turn, (seat,), "warning", f"seat {seat} (scout): {text}", {"text": text})
                for text in event.get("warnings", [])]
        return out
    if kind == "warnings":
        return [Event(turn, (seat,), "warning", f"seat {seat} ({event.get('phase', phase)}): {text}", {"text": text})
                for text in event.get("warnings", [])]
    if kind == "launch":
        f = event.get("fleet", {})
        return [Event(turn, (_seat(f.get("owner")),), "launch",
                      f"seat {f.get('owner')} launches fleet #{f.get('id')}: {f.get('from')} -> {f.get('to')}, "
                      f"{f.get('battleships')}b {f.get('cruisers')}c, arrives in turn {f.get('arrives')}", event)]
    if kind == "battle":
        return [_battle(turn, event)]
    if kind == "capture":
        return [Event(turn, (_seat(event.get("owner")),), "capture",
                      f"seat {event.get('owner')} captures planet {event.get('planet')} "
                      f"(was {who(event.get('previous'))})", event)]
    if kind == "elimination":
        seats = tuple(_seat(s) for s in event.get("seats", []))
        return [Event(turn, seats, "elimination", "eliminated: " + ", ".join(seats_.name(s) for s in seats), event)]
    return _common(turn, event, seats_)


def _common(turn: int | None, event: dict[str, Any], seats: _Seats) -> list[Event]:
    kind = event.get("type")
    if kind == "fault":
        seat = _seat(event.get("seat"))
        return [Event(turn, (seat,), "fault", _fault_text(seat, event, seats), event)]
    if kind == "game_over":
        result = event.get("result", {})
        winner = _seat(result.get("winner"))
        outcome = result.get("outcome")
        head = f"{seats.name(winner)} wins by {outcome}" if winner else (
            "a draw" if outcome == "draw" else f"a draw ({outcome})")
        return [Event(turn, (1, 2), "game_over",
                      f"game over: {head} after {result.get('turns')} {seats.turns_label}", event)]
    return []


def _fault_text(seat: int, fault: dict[str, Any], seats: _Seats) -> str:
    return f"{seats.name(seat)} disqualified ({fault.get('status')}): {fault.get('detail')}"


def _mothership(event: dict[str, Any], seats: _Seats) -> list[Event]:
    if "round" not in event:
        return _common(None, event, seats)
    parts = []
    for side in event.get("sides", []):
        fired = [s for s in side.get("shots", []) if s.get("strength")]
        hits = sum(1 for s in fired if s.get("target") == "mothership")
        # (a shot marked destroyed at the mothership sank the mothership, not a fighter)
        destroyed = sum(1 for s in fired if s.get("destroyed") and s.get("target") != "mothership")
        sank = any(s.get("destroyed") and s.get("target") == "mothership" for s in fired)
        alive = sum(1 for f in side.get("fighters", []) if f.get("defence", 0) > 0)
        # whose mothership is whose: the shots hit the other's, the numbers after are its own (a trial)
        parts.append(f"seat {side.get('seat')}: {_count(len(fired), 'shot')}, {_count(destroyed, 'fighter')} "
                     f"destroyed, {hits} on the enemy mothership{' (destroyed)' if sank else ''}; "
                     f"own mothership {side.get('mothership')}, {_count(alive, 'fighter')} left")
    return [Event(None, (1, 2), "round", f"round {event['round']}: " + "; ".join(parts), event)]


def _count(number: int, noun: str) -> str:
    """`1 fighter`, `2 fighters`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def replay_events(replay: dict[str, Any]) -> list[Event]:
    """Every event of a replay, in order."""
    try:
        label = get_game(replay.get("game", "")).turns_label
    except UnknownGame:
        label = "turns"
    seats = _Seats({p["seat"]: str(p.get("name") or "") for p in replay.get("seats", [])
                    if isinstance(p, dict) and isinstance(p.get("seat"), int)}, label)
    out: list[Event] = []
    for step in replay.get("steps", []):
        turn = step.get("turn")
        phase = step.get("phase") if isinstance(step.get("phase"), str) else ""
        for event in step.get("events", []):
            if not isinstance(event, dict):
                continue
            if replay.get("game") == "galaxy":
                found = _galaxy(event.get("turn", turn), phase, event, seats)
                if found and found[0].kind == "battle" and out and out[-1].kind == "capture" \
                        and out[-1].data.get("planet") == event.get("planet"):
                    found.append(out.pop())  # the engine records a capture before its battle; show the battle first
                out += found
            else:
                out += _mothership(event, seats)
        for seat, fault in (step.get("faults") or {}).items():
            if not any(e.kind == "fault" and e.turn == turn and e.seats == (int(seat),) for e in out):
                out.append(Event(turn, (int(seat),), "fault", _fault_text(int(seat), fault, seats), fault))
    return out


def select(events: list[Event], turn: int | None = None, seat: int | None = None,
           kinds: list[str] | None = None) -> list[Event]:
    """The events of one turn, one seat and some kinds (None: all)."""
    return [e for e in events
            if (turn is None or e.turn == turn) and (seat is None or seat in e.seats)
            and (not kinds or e.kind in kinds)]


def warning_counts(replay: dict[str, Any]) -> dict[int, tuple[int, str]]:
    """Per seat: how many orders or probe targets were dropped (GX-8, GX-10), and the first, with its turn."""
    counts: dict[int, tuple[int, str]] = {}
    for event in replay_events(replay):
        if event.kind != "warning":
            continue
        seat = event.seats[0]
        text = str(event.data.get("text", ""))
        more = _MORE.match(text)
        count, first = counts.get(seat, (0, ""))
        counts[seat] = (count + (int(more.group(1)) if more else 1),
                        first or f"at turn {event.turn}: {text}")
    return counts
