"""Kept counts over matches: each bot's record (`BotRecord`) and its record against each opponent
(`HeadToHead`), so no page ever counts the matches table.

They change in the transactions that change what they count: `create_match` adds a match to both
bots, `execution.record` adds the result, `void_by_staff` takes a finished match's result back. A
private event's matches are counted in neither (`access.private_event`: they are the event's
content; `create_match(counted=False)`). Each is an increment in the database (`F() + 1`), so
concurrent recordings add up; rows are touched in bot order, so two transactions never wait for each
other in a circle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F

from armada_web.matches.access import private_event
from armada_web.matches.models import BotRecord, HeadToHead, Participant, Result

COLUMNS = {Result.WIN: "wins", Result.DRAW: "draws", Result.LOSS: "losses"}


def _add(model: Any, keys: dict[str, Any], changes: dict[str, int], create: dict[str, Any] | None = None) -> None:
    """Add `changes` to the row with `keys`, creating it first when there is none."""
    increments = {name: F(name) + amount for name, amount in changes.items()}
    if model.objects.filter(**keys).update(**increments, **(create or {})):
        return
    try:
        with transaction.atomic():
            model.objects.create(**keys, **{name: max(amount, 0) for name, amount in changes.items()},
                                 **(create or {}))
    except IntegrityError:  # another transaction created it meanwhile
        model.objects.filter(**keys).update(**increments, **(create or {}))


def count_made(*, seats: Sequence[Participant]) -> None:
    """A match was made: one more match for each seat's bot."""
    for bot_id in sorted({p.bot_id for p in seats if p.bot_id is not None}):
        _add(BotRecord, {"bot_id": bot_id}, {"matches": 1})


def count_result(*, seats: Sequence[Participant], sign: int = 1) -> None:
    """A match finished with these seats' results (`sign` -1: it was voided after finishing); a
    private event's match counts nowhere."""
    if not seats or private_event(match_id=seats[0].match_id):
        return
    for p in sorted((p for p in seats if p.bot_id is not None and p.result in COLUMNS), key=lambda p: p.bot_id or 0):
        column = COLUMNS[Result(p.result)]
        _add(BotRecord, {"bot_id": p.bot_id}, {column: sign})
        if p.opponent_id is None:
            continue  # the opponent is gone: its row keeps the name and is never counted again
        other = next((o for o in seats if o is not p), None)
        extra = {"last_match_id": p.match_id} if sign > 0 else {}
        _add(HeadToHead, {"bot_id": p.bot_id, "opponent_id": p.opponent_id}, {"games": sign, column: sign},
             {"opponent_name": other.name if other is not None else "", **extra})
