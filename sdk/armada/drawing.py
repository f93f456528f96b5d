"""Bots draw on the board: the `debug` object of a reply, checked, bounded and kept per seat.

A reply may carry `"debug": {"shapes": [...], "text": "..."}` (protocol.md, "Drawing"). The
referee takes it out of the reply before the game reads the orders (`without_debug`), so a
drawing never changes play, and hands it to the seat's `Drawings`, which keeps what is valid:

- a shape is `{"kind", "at", "to", "text", "color"}`: `kind` one of KINDS; `at` (and `to` for a
  line or an arrow) a point: an id the game's `Board` knows (a Galaxy planet, a Mothership Down
  ship) or `[x, y]` inside the board; `text` for a label (one line, at most MAX_LABEL_CHARS);
  `color` one of PALETTE, anything else DEFAULT_COLOR;
- at most MAX_SHAPES shapes and MAX_TEXT_BYTES of text a turn, at most MAX_SEAT_BYTES a match.

A shape of the wrong form is ignored, text is clipped, and past a limit the rest of that turn's
drawing is dropped; each reply that lost something gives one note line for the bot's log
(at most MAX_NOTES a match). Nothing here raises on what a bot sends (D-R-16).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

#: The reply's key (and the local replay's top-level key) for drawings.
DEBUG_KEY = "debug"
KINDS: tuple[str, ...] = ("dot", "ring", "line", "arrow", "label")
#: Kinds drawn between two points (`at` -> `to`).
TWO_POINTS = frozenset({"line", "arrow"})
#: The colours a shape may name; the viewers map each to one shade.
PALETTE: tuple[str, ...] = ("white", "red", "orange", "yellow", "green", "cyan", "blue", "purple")
DEFAULT_COLOR = "white"
#: Shapes kept a turn (both of Galaxy's requests together).
MAX_SHAPES = 500
#: Bytes (UTF-8) of text kept a turn.
MAX_TEXT_BYTES = 16 * 1024
#: Characters of a label's text.
MAX_LABEL_CHARS = 80
#: Bytes (compact JSON of the shapes, plus the text) kept for one seat in one match.
MAX_SEAT_BYTES = 2 * 1024 * 1024
#: Note lines a seat's drawing writes into its log in one match.
MAX_NOTES = 10
#: The turn of a request without one (Mothership Down's single `orders` request).
NO_TURN = 0

#: Control characters taken out of drawn text (newline and tab stay in the turn's text).
_CONTROLS = {code: None for code in [*range(32), 127] if code not in (9, 10)}


@dataclass(frozen=True)
class Board:
    """What a game lets a bot draw on: the ids of its things and the box `[x, y]` points must be in."""

    ids: frozenset[int | str]
    x: tuple[float, float]
    y: tuple[float, float]


def without_debug(reply: dict[str, Any]) -> dict[str, Any]:
    """The reply as the game reads it: without its `debug` key (the same object when it has none)."""
    if DEBUG_KEY not in reply:
        return reply
    return {key: value for key, value in reply.items() if key != DEBUG_KEY}


def clean_text(value: str) -> str:
    """Text as kept: valid UTF-8 (lone surrogates become `?`), no control characters but newline and tab."""
    return value.encode("utf-8", "replace").decode("utf-8").translate(_CONTROLS)


def clip_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-8 bytes, never inside a character."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:max(0, limit)].decode("utf-8", "ignore")


def _short(value: Any) -> str:
    """A value quoted in a note, at most 30 characters."""
    try:
        return json.dumps(value, default=str)[:30]
    except (RecursionError, ValueError, TypeError):
        return type(value).__name__


def point(value: Any, board: Board) -> tuple[int | str | list[float] | None, str]:
    """(the point, "") or (None, why): an id of the board, or `[x, y]` inside it."""
    if isinstance(value, bool):
        return None, "is a boolean"
    if isinstance(value, int | str):
        return (value, "") if value in board.ids else (None, f"names nothing on the board ({_short(value)})")
    if isinstance(value, list) and len(value) == 2:
        x, y = value
        if any(isinstance(v, bool) or not isinstance(v, int | float) for v in (x, y)):
            return None, "is not [x, y] with numbers"
        # floats only: a JSON integer may have hundreds of digits, past what float() (and isfinite) takes;
        # an int compares with the board's bounds exactly, so a huge one is simply off the board
        if not all(math.isfinite(v) for v in (x, y) if isinstance(v, float)):
            return None, "is not finite"
        if not (board.x[0] <= x <= board.x[1] and board.y[0] <= y <= board.y[1]):
            return None, f"is off the board ({_short(value)})"
        return [round(float(x), 3), round(float(y), 3)], ""
    return None, f"is neither an id nor [x, y] ({_short(value)})"


def clean_shape(raw: Any, board: Board) -> tuple[dict[str, Any] | None, str]:
    """(the shape as kept, "") or (None, why it is ignored)."""
    if not isinstance(raw, dict):
        return None, "not an object"
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        return None, f"unknown kind {_short(kind)}"
    at, why = point(raw.get("at"), board)
    if at is None:
        return None, f"'at' {why}"
    shape: dict[str, Any] = {"kind": kind, "at": at}
    if kind in TWO_POINTS:
        to, why = point(raw.get("to"), board)
        if to is None:
            return None, f"'to' {why}"
        shape["to"] = to
    text = raw.get("text")
    label = " ".join(clean_text(text).split())[:MAX_LABEL_CHARS] if isinstance(text, str) else ""
    if kind == "label" and not label:
        return None, "a label needs a text"
    if label:  # a label's words; on another shape, its note (the viewer's tooltip)
        shape["text"] = label
    color = raw.get("color")
    shape["color"] = color if isinstance(color, str) and color in PALETTE else DEFAULT_COLOR
    return shape, ""


def _shapes(count: int) -> str:
    return f"{count} shape" + ("" if count == 1 else "s")


def _point_size(value: Any) -> int:
    if isinstance(value, list):
        return 3 + len(repr(value[0])) + len(repr(value[1]))
    return len(str(value)) + (2 if isinstance(value, str) else 0)


def _size(shape: dict[str, Any]) -> int:
    """The shape's bytes as compact JSON (kept shapes only: ids, rounded floats, clean one-line text)."""
    size = 28 + len(shape["kind"]) + len(shape["color"]) + _point_size(shape["at"])
    if "to" in shape:
        size += 6 + _point_size(shape["to"])
    if "text" in shape:
        text = shape["text"]
        size += 10 + len(text.encode("utf-8")) + text.count('"') + text.count("\\")
    return size


class Drawings:
    """One seat's drawings in one match, turn by turn (`add`), as `{"turns": [...]}` (`to_dict`)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.turns: list[dict[str, Any]] = []
        self.bytes = 0
        self.notes = 0
        self.full = False  # the match's budget is used up

    def add(self, turn: int | None, raw: Any) -> str | None:
        """Keep what a reply's `debug` value draws at `turn`; the note line for the bot's log, or None."""
        if raw is None or self.full:
            return None  # nothing drawn, or the budget is used up (said once, when it happened)
        problems: list[str] = []
        number = NO_TURN if turn is None else turn
        entry = self._entry(number)
        if not isinstance(raw, dict):
            problems.append(f"debug is not an object ({_short(raw)}): ignored")
            raw = {}
        shapes = raw.get("shapes", [])
        if not isinstance(shapes, list):
            problems.append("debug.shapes is not a list: ignored")
            shapes = []
        ignored, first = 0, ""
        room = MAX_SHAPES - len(entry["shapes"])  # only this many are looked at: the referee's work is bounded
        dropped = max(0, len(shapes) - room)
        for index, item in enumerate(shapes[:room]):
            shape, why = clean_shape(item, self.board)
            if shape is None:
                ignored += 1
                first = first or f"shapes[{index}]: {why}"
                continue
            if not self._spend(_size(shape)):
                break
            entry["shapes"].append(shape)
        if ignored:
            problems.append(f"{_shapes(ignored)} ignored (first: {first})")
        if dropped:
            problems.append(f"{_shapes(dropped)} dropped past the limit of {MAX_SHAPES} a turn")
        problems += self._add_text(entry, raw.get("text"))
        if self.full:
            problems.append(f"the match's drawing budget of {MAX_SEAT_BYTES} bytes is used up: "
                            "the rest is dropped, and nothing more is kept this match")
        if (entry["shapes"] or entry["text"]) and not (self.turns and self.turns[-1] is entry):
            self.turns.append(entry)
        return self._note(number, problems, forced=self.full)

    def _entry(self, turn: int) -> dict[str, Any]:
        if self.turns and self.turns[-1]["turn"] == turn:
            return self.turns[-1]
        return {"turn": turn, "shapes": [], "text": ""}

    def _spend(self, size: int) -> bool:
        if self.bytes + size > MAX_SEAT_BYTES:
            self.full = True
            return False
        self.bytes += size
        return True

    def _add_text(self, entry: dict[str, Any], text: Any) -> list[str]:
        if text is None or text == "":
            return []
        if not isinstance(text, str):
            return [f"debug.text is not a string ({_short(text)}): ignored"]
        if self.full:
            return []
        joined = clean_text(text) if not entry["text"] else entry["text"] + "\n" + clean_text(text)
        kept = clip_bytes(joined, MAX_TEXT_BYTES)
        added = len(kept.encode("utf-8")) - len(entry["text"].encode("utf-8"))
        if added > 0 and not self._spend(added):
            return []
        if kept != joined and kept == entry["text"]:  # (the turn's text was full: scout used it, say)
            return [f"text dropped: the turn's {MAX_TEXT_BYTES} bytes of text are used"]
        entry["text"] = kept
        if kept != joined:
            return [f"text clipped to {MAX_TEXT_BYTES} bytes a turn"]
        return []

    def _note(self, turn: int, problems: list[str], *, forced: bool) -> str | None:
        if not problems or (self.notes >= MAX_NOTES and not forced):
            return None
        self.notes += 1
        last = " (no more drawing notes this match)" if self.notes == MAX_NOTES else ""
        return f"[armada] drawing, turn {turn}: " + "; ".join(problems) + last

    def to_dict(self) -> dict[str, Any]:
        """`{"turns": [{"turn", "shapes", "text"}, ...]}`: the turns that drew something, in order."""
        return {"turns": [dict(entry) for entry in self.turns if entry["shapes"] or entry["text"]]}


def with_drawings(replay: dict[str, Any], drawings: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """A local replay: `replay` with the top-level `debug` key (seat "1", "2" -> `{"turns": [...]}`)
    when a seat drew anything (replay-format.md); the site's public replays never carry it."""
    if not any(d.get("turns") for d in drawings.values()):
        return replay
    return {**replay, DEBUG_KEY: {str(seat): drawings[seat] for seat in sorted(drawings)}}
