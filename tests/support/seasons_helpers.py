"""Helpers of the seasons' and events' tests: record a queued match as a worker would (claim, then
the one recording transaction) with a made-up outcome, without playing it; the queued matches of a
kind; and `manage.py season ...` as an organiser runs it."""

from __future__ import annotations

from io import StringIO
from typing import Any

from django.core.management import call_command

from armada.games.base import Result
from armada.referee.match import MatchOutcome, PlayerReport


def record_result(match: Any, winner: int | None, statuses: tuple[str, str] = ("ok", "ok")) -> str:
    """Claim the queued `match` and record `winner` (1, 2 or None) through matches.execution.record."""
    from armada_web.jobs.leases import claim
    from armada_web.matches.execution import MATCH, record

    lease = claim(kind=MATCH, job_id=match.pk)
    assert lease is not None, f"match {match.pk} was not queued"
    participants = list(match.participants.order_by("seat"))
    players = [PlayerReport(seat, "x", statuses[seat - 1], "" if statuses[seat - 1] == "ok" else "boom")
               for seat in (1, 2)]
    outcome = MatchOutcome(Result(winner, "turn_limit", 10), players, {"engine_version": "2"})
    return record(lease=lease, match=match, participants=participants, outcome=outcome,
                  replay_name=f"matches/{match.pk}/r", log_names={1: "a", 2: "b"})


def queued(kind: str) -> list[Any]:
    from armada_web.matches.models import Match, MatchStatus

    return list(Match.objects.filter(kind=kind, status=MatchStatus.QUEUED).order_by("id"))


def season_command(*args: str) -> str:
    """`manage.py season ARGS`: the line it printed."""
    out = StringIO()
    call_command("season", *args, stdout=out)
    return out.getvalue().strip()
