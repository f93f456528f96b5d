"""The wire format of protocol version 1: encoding requests, decoding and checking replies.

One UTF-8 JSON object per line in both directions (docs/protocol.md). Replies are parsed
strictly: no NaN or Infinity, no floats that overflow to infinity, no nesting deep
enough to exhaust the parser, and the reply must be a JSON object. The one exception: NaN,
Infinity and out-of-range numbers inside the reply's `debug` object (a drawing, D-R-16) parse
to a placeholder that the drawing's checks ignore, so a drawing is never a protocol error.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from armada.drawing import DEBUG_KEY
from armada.jsontext import json_type

#: The protocol version sent in every `init` message.
PROTOCOL_VERSION = 1
#: MD-3: a display name is at most this many characters after trimming.
MAX_NAME_CHARS = 40
#: How much of an unreadable reply is quoted in a fault detail.
PREVIEW_CHARS = 40
#: Longest integer accepted in a reply, in digits (a 64-bit integer has at most 20).
MAX_INT_DIGITS = 20
#: A JSON escape of a UTF-16 surrogate (`\\udc80`): alone, it parses to a string no UTF-8 can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class ProtocolError(Exception):
    """A reply broke the framing rules; the message is the one-line fault detail. `line`, when the fault
    is about what the line says: its short quote (`preview`), for the bot's log only (the detail is
    public; a security trial saw a bot's stray print shown to everyone in it)."""

    def __init__(self, message: str, line: str | None = None) -> None:
        super().__init__(message)
        self.line = line

    def public(self) -> str:
        """The detail a match shows anyone: the line's quote left to the bot's log."""
        return str(self) + ("; the line is quoted in the bot's log" if self.line is not None else "")

    def quoted(self) -> str:
        """The detail with the line's quote (where only the line's author sees it: an RL action)."""
        return str(self) + (f": {self.line}" if self.line is not None else "")


def encode_message(message: dict[str, Any]) -> bytes:
    """One request as a protocol line (compact JSON, ending in a newline)."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8") + b"\n"


class _Unacceptable:
    """What a NaN, an Infinity or an out-of-range number parses to: fine inside `debug` (a drawing,
    armada.drawing, where it is ignored as any bad value), a protocol error anywhere else."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why

    def __repr__(self) -> str:
        return "unacceptable number"

    __str__ = __repr__


def _contains_unacceptable(value: Any) -> _Unacceptable | None:
    """The first unacceptable number in `value` (iteratively: the parser bounds the depth)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Unacceptable):
            return item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) in `value` holding a lone UTF-16 surrogate, or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= char <= "\udfff" for char in item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def preview(raw: bytes) -> str:
    """A short, single-line, escaped quote of a bad line for a fault detail."""
    text = raw[:PREVIEW_CHARS].decode("utf-8", "replace")
    more = "..." if len(raw) > PREVIEW_CHARS else ""
    return ascii(text) + more


def decode_reply(raw: bytes) -> dict[str, Any]:
    """Parse one reply line (without its newline); raise ProtocolError saying what is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"reply is not valid UTF-8 (bad byte at offset {exc.start})") from None
    found: list[_Unacceptable] = []

    def unacceptable(why: str) -> _Unacceptable:
        found.append(_Unacceptable(why))
        return found[-1]

    def constant(name: str) -> Any:
        return unacceptable(f"{name} is not allowed in a reply")

    def finite_float(number: str) -> Any:
        value = float(number)
        return value if math.isfinite(value) else unacceptable(f"number {number[:20]} is out of range")

    def bounded_int(number: str) -> Any:
        digits = len(number.lstrip("-"))
        if digits > MAX_INT_DIGITS:
            return unacceptable(f"an integer of {digits} digits is too large (at most {MAX_INT_DIGITS})")
        return int(number)

    try:
        value = json.loads(text, parse_constant=constant, parse_float=finite_float, parse_int=bounded_int)
    except RecursionError:
        raise ProtocolError("reply is nested too deeply to parse") from None
    except json.JSONDecodeError as exc:
        hint = "stdout carries the replies alone: print anything else to stderr, the bot's log"
        where = f"{exc.msg} at column {exc.colno}"
        raise ProtocolError(f"reply is not valid JSON ({where}; {hint})", line=preview(raw)) from None
    if not isinstance(value, dict):
        if found:
            raise ProtocolError(f"reply is not acceptable JSON ({found[0].why})")
        raise ProtocolError(f"reply is a JSON {json_type(value)}, not an object", line=preview(raw))
    if _SURROGATE_ESCAPE.search(text):  # a lone surrogate would stop the replay's UTF-8 encoding
        bad_text = _lone_surrogate({k: v for k, v in value.items() if k != DEBUG_KEY})
        if bad_text is not None:
            raise ProtocolError("reply is not acceptable JSON (a string holds a lone surrogate: not Unicode text)",
                                line=ascii(bad_text[:PREVIEW_CHARS]))
    if found:  # only a drawing may hold them (D-R-16): it ignores them like any bad value
        bad = _contains_unacceptable({k: v for k, v in value.items() if k != DEBUG_KEY})
        if bad is not None:
            raise ProtocolError(f"reply is not acceptable JSON ({bad.why})")
    return value


def reply_id(reply: dict[str, Any]) -> int:
    """The reply's id; raise ProtocolError when it is missing or not an integer."""
    if "id" not in reply:
        raise ProtocolError("reply has no id")
    value = reply["id"]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProtocolError(f"reply id must be an integer, not {json_type(value)}",
                            line=json.dumps(value)[:PREVIEW_CHARS])
    return value


def one_line(text: str, limit: int = 300) -> str:
    """`text` on one line (whitespace runs collapsed), cut to `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def clean_name(value: Any, fallback: str) -> str:
    """The display name announced in the init reply (MD-3), or `fallback` when it is not acceptable."""
    return fallback if name_refusal(value) is not None or value is None else value.strip()


def name_refusal(value: Any) -> str | None:
    """Why the init reply's `name` is not shown (MD-3), for the bot's log; None when it is (or none came)."""
    if value is None:
        return None
    if not isinstance(value, str):
        return f"a name is a string, not {type(value).__name__}"
    name = value.strip()
    if not name:
        return "the name is empty"
    if len(name) > MAX_NAME_CHARS:
        return f"the name has {len(name)} characters after trimming; at most {MAX_NAME_CHARS} are shown"
    if not name.isprintable():
        return "the name holds characters that cannot be printed (control characters, line breaks)"
    return None
