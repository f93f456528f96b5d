"""What a seat's bot drew on the board in a match (issue 27), for the bot's owner and staff.

The referee keeps each seat's drawings (armada.drawing) and the worker stores them beside the
seat's log (`Participant.debug`, matches/storage.py), with the same privacy and retention: for
anyone but the seat's bot's owner and staff the match does not exist (`NotFound`, the answer to
a missing match). Public replays never carry drawings.
"""

from __future__ import annotations

from typing import Any

from armada_web.matches import storage
from armada_web.matches.models import IN_FLIGHT
from armada_web.matches.rerun import private_seat
from armada_web.web.errors import Conflict


def seat_drawings(*, user: Any, match_id: int, seat: int) -> dict[str, Any]:
    """`{"turns": [{"turn", "shapes", "text"}, ...]}` of seat `seat` in match `match_id` (no turns
    when it drew nothing, or the match ended without a game); NotFound unless `user` may see the
    seat; Conflict while it is queued or playing (its drawings come with its end, as its replay)."""
    match, participant = private_seat(user=user, match_id=match_id, seat=seat)
    if match.status in IN_FLIGHT:
        raise Conflict(f"this match is {match.status}: its drawings come with its end, as its replay")
    drawing = storage.read_drawing(participant.debug.name or "") if participant.debug else None
    return {"turns": drawing["turns"]} if drawing is not None else {"turns": []}
