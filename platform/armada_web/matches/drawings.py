"""What a seat's bot drew on the board in a match (issue 27), for the bot's owner and staff.

The referee keeps each seat's drawings (armada.drawing) and the worker stores them beside the
seat's log (`Participant.debug`, matches/storage.py), with the same privacy and retention: for
anyone but the seat's bot's owner and staff the match does not exist (`NotFound`, the answer to
a missing match). Public replays never carry drawings.
"""

from __future__ import annotations

import gzip
import io
import json
from typing import Any

from armada_web.bots.access import can_see_private
from armada_web.matches import storage
from armada_web.matches.models import IN_FLIGHT, Match
from armada_web.matches.rerun import private_seat
from armada_web.web.errors import Conflict, NotFound


def seat_drawings(*, user: Any, match_id: int, seat: int) -> dict[str, Any]:
    """`{"turns": [{"turn", "shapes", "text"}, ...]}` of seat `seat` in match `match_id` (no turns
    when it drew nothing, or the match ended without a game); NotFound unless `user` may see the
    seat; Conflict while it is queued or playing (its drawings come with its end, as its replay)."""
    match, participant = private_seat(user=user, match_id=match_id, seat=seat)
    if match.status in IN_FLIGHT:
        raise Conflict(f"this match is {match.status}: its drawings come with its end, as its replay")
    drawing = storage.read_drawing(participant.debug.name or "") if participant.debug else None
    return {"turns": drawing["turns"]} if drawing is not None else {"turns": []}


def replay_with_drawings(*, user: Any, match: Match, replay: bytes) -> bytes:
    """The match's stored replay (gzip JSON) with a `debug` key holding the drawings of every seat
    `user` may see privately (the other seat's `turns` empty), as `armada play --replay` writes it,
    so that `armada replay --open` shows them offline; NotFound when `user` may see no seat's,
    Conflict when the stored replay cannot be read. The key is written before the object's closing
    brace, so a long game's replay is never parsed in the web process (only unpacked and packed)."""
    seats = [p for p in match.participants.all()
             if p.version is not None and can_see_private(user=user, bot=p.version.bot)]
    if not seats:
        raise NotFound("no drawings of this match are yours (they are its bots' teams'): "
                       "download its replay without ?drawings")
    debug: dict[str, Any] = {str(p.seat): {"turns": []} for p in match.participants.all()}
    for p in seats:
        drawing = storage.read_drawing(p.debug.name or "") if p.debug else None
        if drawing is not None:
            debug[str(p.seat)] = {"turns": drawing["turns"]}
    try:
        text = gzip.decompress(replay)
    except (OSError, EOFError) as exc:
        raise Conflict(f"this match's stored replay cannot be read ({exc})") from None
    end = text.rfind(b"}")  # the object's closing brace: only white space may follow it
    if not text[:64].lstrip().startswith(b"{") or end < 0:
        raise Conflict("this match's stored replay cannot be read (it is not a JSON object)")
    comma = b"" if text[max(0, end - 64):end].rstrip().endswith(b"{") else b","
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=0) as packed:
        packed.write(text[:end])
        packed.write(comma + b'"debug":' + json.dumps(debug, separators=(",", ":")).encode("utf-8"))
        packed.write(text[end:])
    return out.getvalue()
