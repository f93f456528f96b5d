"""A job's note as pages and the API show it (a match's `reason`, a version's `detail`).

A platform failure's note carries its cause after a colon: an exception's own text, which may
name the worker's folders, hosts or storage (what /healthz keeps to operators). Staff see the
whole note (and /status/ lists the failures); anyone else, and the e-mails, its first words, which
say what happened, not where.
"""

from __future__ import annotations

import re
from typing import Any

from armada_web.web.roles import is_staff

#: How the notes of a platform failure begin (jobs.leases' give_back and give_up, matches.execution's void).
PLATFORM = ("platform failure", "retrying after a platform failure")


def shown_note(note: str, *, user: Any) -> str:
    """`note` whole for staff; for anyone else a platform failure's with its cause's first words only
    (the platform's own, up to the first colon or bracket: "the sandbox is unavailable", "the stored
    archive of seat 1 could not be unpacked"; an exception's text follows them)."""
    if is_staff(user) or not note.startswith(PLATFORM):
        return note
    head, _, cause = note.partition(":")
    words = re.split(r"[:(\[]", cause, maxsplit=1)[0].strip().rstrip(";,. ")
    return f"{head}{': ' + words if words else ''} (not a bot's doing; staff see the cause)"
