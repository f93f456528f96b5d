"""The report's plain parts: a passage's lines cut from a source with the matching ones marked
(the copy's side-by-side view), and the one-line text of a finding for `manage.py integrity`."""

from __future__ import annotations

from dataclasses import dataclass

#: Lines shown around a matching passage.
CONTEXT = 2


@dataclass(frozen=True)
class Line:
    """One source line of an excerpt: its number, its text, and whether it is in the passage."""

    number: int
    text: str
    hit: bool


def excerpt(text: str | None, first: int, last: int, context: int = CONTEXT) -> list[Line]:
    """Lines `first`..`last` (1-based, inclusive) of `text`, marked, with `context` lines around;
    an empty list when the text is missing or the lines are past its end."""
    if text is None:
        return []
    lines = text.splitlines()
    start, stop = max(1, first - context), min(len(lines), last + context)
    return [Line(n, lines[n - 1], first <= n <= last) for n in range(start, stop + 1)]


def line_of(*, rank: int, kind: str, score: float, status: str, subjects: list[object], reason: str,
            links: list[str]) -> str:
    """One finding as a line of the text report: rank, kind, score, status, subjects, reason, links."""
    who = ", ".join(str(s) for s in subjects)
    shown = "" if status == "open" else f" [{status}]"
    where = f" -> {' '.join(links)}" if links else ""
    return f"{rank:>3}. {score:.3f} {kind:<9} {who}{shown}: {reason}{where}"
