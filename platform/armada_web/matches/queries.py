"""Match reads for the API and the pages: matches with their seats, the latest finished, a bot's
kept record and head-to-head, a seat's log line by line with its turn, each request's time.
(The filtered match list is `listing.py`.)"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch, QuerySet

from armada.logmarks import parse_mark
from armada_web.matches import storage
from armada_web.matches.models import BotRecord, HeadToHead, Match, MatchStatus, Participant


def matches() -> QuerySet[Match]:
    """Matches with their seats' versions and bots (two queries for any page)."""
    seats = Participant.objects.select_related("version", "version__bot", "version__bot__owner").order_by("seat")
    return Match.objects.prefetch_related(Prefetch("participants", queryset=seats)).order_by("-created", "-id")


def latest_finished(limit: int = 10, game: str | None = None) -> list[Match]:
    queryset = matches().filter(status=MatchStatus.FINISHED)
    if game:
        queryset = queryset.filter(game=game)
    return list(queryset.order_by("-finished", "-id")[:limit])


def busiest_bot() -> int | None:
    """The bot that sat in the most matches (its kept record)."""
    return BotRecord.objects.order_by("-matches", "bot_id").values_list("bot_id", flat=True).first()


def record_of(bot_id: int) -> BotRecord:
    """The bot's kept counts (zeros before its first match)."""
    return BotRecord.objects.filter(bot_id=bot_id).first() or BotRecord(bot_id=bot_id)


def head_to_head(bot_id: int) -> QuerySet[HeadToHead]:
    """The bot's record against each opponent (finished matches, kept), most played first."""
    return HeadToHead.objects.filter(bot_id=bot_id).order_by("-games", "opponent_id")


@dataclass
class Request:
    """One request of the referee to a seat, as its log marks it, with its time from the replay."""

    number: int
    type: str
    turn: int | None
    ms: float | None = None
    lines: list[str] = field(default_factory=list)


def log_requests(log: str, timings: list[float] | None) -> tuple[list[str], list[Request]]:
    """(lines before the first mark, every request with its time and the lines written during it).

    The replay's `timings` hold each request's milliseconds in the order sent, so request N's
    time is timings[N] (ids count from 0, init first). The referee marks only the requests
    during which the bot wrote something; those give the type and turn.
    """
    head: list[str] = []
    marked: dict[int, Request] = {}
    current: Request | None = None
    for line in log.splitlines():
        mark = parse_mark(line)
        if mark is not None:
            current = marked.setdefault(mark[0], Request(*mark))
        elif current is not None:
            current.lines.append(line)
        else:
            head.append(line)
    times = list(timings or [])
    requests = [marked.get(n) or Request(n, "", None) for n in range(len(times))]
    requests += [r for n, r in sorted(marked.items()) if n >= len(times)]
    for request in requests:
        if request.number < len(times):
            request.ms = times[request.number]
    return head, requests


def replay_of(match: Match) -> dict[str, Any] | None:
    """The finished match's replay as data, None when it has none."""
    if match.status != MatchStatus.FINISHED:
        return None
    raw = storage.read(match.replay.name or "")
    if raw is None:
        return None
    try:
        data = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def seat_log(participant: Participant) -> str:
    raw = storage.read(participant.log.name or "")
    return raw.decode("utf-8", "replace") if raw is not None else ""
