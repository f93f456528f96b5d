"""`self.debug`: what a bot draws on the board while it answers one request.

Every library bot has one `Drawing` (`BaseBot.debug`). `run` clears it before each request
and attaches what was drawn to the reply as its `debug` object (protocol.md, "Drawing"); the
viewers show it over the board at that turn, to the bot's owner only. Points are a planet id
(Galaxy, or a `Planet`), a ship's id (Mothership Down: `"mothership-1"`, `"fighter-2-3"`) or
`(x, y)`. Past the referee's limits (armada.drawing) the library stops adding and says so once
in the log, so drawing never makes a reply too long.
"""

from __future__ import annotations

import json
from typing import Any

from armada.drawing import DEFAULT_COLOR, MAX_LABEL_CHARS, MAX_NOTES, MAX_SHAPES, MAX_TEXT_BYTES, PALETTE, clip_bytes

__all__ = ["PALETTE", "Drawing"]


def _writable(text: str) -> str:
    """`text` with lone surrogates (which UTF-8 cannot write) replaced by "?"."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _plain(value: Any) -> Any:
    """A number or a short vector of numpy's or PyTorch's (np.int64 from a policy's `argmax`, a
    float32, `np.array([x, y])`, `torch.argmax(...)`) as Python's, which JSON writes (a trial: such
    points were dropped as "an object"), else `value` as it is."""
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and getattr(value, "ndim", None) in (0, 1):
        return tolist()
    return value


def _point(value: Any) -> Any:
    """A point as the protocol writes it: an id (an object's `id`, e.g. a `Planet`) or `[x, y]`."""
    value = _plain(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    ident = _plain(getattr(value, "id", None))
    if isinstance(ident, int | str) and not isinstance(ident, bool):
        value = ident
    return _writable(value) if isinstance(value, str) else value


class Drawing:
    """Shapes and text for the current request: `dot`, `ring`, `line`, `arrow`, `label`, `text`.

    `color` is one of PALETTE (`white`, `red`, `orange`, `yellow`, `green`, `cyan`, `blue`,
    `purple`); any other name is drawn in `white`."""

    def __init__(self) -> None:
        self.shapes: list[dict[str, Any]] = []
        self.lines: list[str] = []
        self.dropped = 0
        #: What `to_json` left out: shapes JSON cannot carry, and the text's bytes past the limit.
        self.unwritable = 0
        self.clipped = 0
        #: Notes written this match (`notice`): at most MAX_NOTES, as the referee's own.
        self.noted = 0

    def dot(self, at: Any, color: str = DEFAULT_COLOR) -> None:
        """A filled dot on a planet, a ship or a point."""
        self._add({"kind": "dot", "at": _point(at), "color": color})

    def ring(self, at: Any, color: str = DEFAULT_COLOR) -> None:
        """A ring around a planet, a ship or a point."""
        self._add({"kind": "ring", "at": _point(at), "color": color})

    def line(self, a: Any, b: Any, color: str = DEFAULT_COLOR) -> None:
        """A line from `a` to `b`."""
        self._add({"kind": "line", "at": _point(a), "to": _point(b), "color": color})

    def arrow(self, a: Any, b: Any, color: str = DEFAULT_COLOR) -> None:
        """An arrow from `a` to `b`."""
        self._add({"kind": "arrow", "at": _point(a), "to": _point(b), "color": color})

    def label(self, at: Any, text: object, color: str = DEFAULT_COLOR) -> None:
        """A short text (one line, at most 80 characters) at a planet, a ship or a point."""
        self._add({"kind": "label", "at": _point(at),
                   "text": _writable(" ".join(str(text).split())[:MAX_LABEL_CHARS]), "color": color})

    def text(self, *parts: object) -> None:
        """A line of text for this turn, shown beside the log (parts joined by spaces, like print)."""
        self.lines.append(_writable(" ".join(str(part) for part in parts)))

    def clear(self) -> None:
        """Forget what was drawn (`run` does it before every request)."""
        self.shapes.clear()
        self.lines.clear()
        self.dropped = self.unwritable = self.clipped = 0

    def _add(self, shape: dict[str, Any]) -> None:
        if len(self.shapes) >= MAX_SHAPES:
            self.dropped += 1
            return
        if isinstance(shape["color"], str):
            shape["color"] = _writable(shape["color"])
        self.shapes.append(shape)

    def to_json(self) -> dict[str, Any] | None:
        """The reply's `debug` object, or None when nothing was drawn."""
        if not self.shapes and not self.lines:
            return None
        shapes = _sendable(self.shapes)
        self.unwritable = len(self.shapes) - len(shapes)
        out: dict[str, Any] = {"shapes": shapes}
        if self.lines:
            text = "\n".join(self.lines)
            out["text"] = clip_bytes(text, MAX_TEXT_BYTES)
            self.clipped = len(text.encode("utf-8")) - len(out["text"].encode("utf-8"))
        return out

    def notice(self) -> str:
        """The log line when something drawn was left out (after `to_json`), else "": shapes past
        MAX_SHAPES a request, shapes JSON cannot carry (NaN, infinity, objects), text past MAX_TEXT_BYTES.
        At most MAX_NOTES a match (a bot drawing too much every turn would fill its log)."""
        said = []
        if self.dropped:
            said.append(f"{self.dropped} shapes past the limit of {MAX_SHAPES} a request were not sent")
        if self.unwritable:
            many = self.unwritable != 1
            said.append(f"{self.unwritable} shape{'s' if many else ''} JSON cannot write (NaN, infinity or an "
                        f"object as a point) {'were' if many else 'was'} not sent")
        if self.clipped:
            said.append(f"the text was cut to its limit of {MAX_TEXT_BYTES} bytes a request "
                        f"({self.clipped} bytes not sent)")
        if not said or self.noted >= MAX_NOTES:
            return ""
        self.noted += 1
        last = " (no more drawing notes this match)" if self.noted == MAX_NOTES else ""
        return f"[armada] drawing: {'; '.join(said)}{last}"


def _fits(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _sendable(shapes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The shapes JSON can carry (no NaN, no objects it cannot write): one check, then one per shape
    only when some shape cannot be written, so a bad point never costs the reply."""
    if _fits(shapes):
        return list(shapes)
    return [shape for shape in shapes if _fits(shape)]
