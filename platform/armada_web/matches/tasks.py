"""The match tasks: `run_match` (queues `matches` and `challenges`) and the periodic `reap_matches`.

`run_match` is safe to deliver twice or to die halfway: it claims the row with a conditional
update (queued -> running, attempts + 1), and records the result, the files' names and the
rating change in one transaction that first checks its own attempt still holds the row, so a
match is counted once. A platform failure makes the match `void` (no result, no rating
change); a bot's fault is a result (its loss). The reaper re-queues matches a lost worker left
behind (or whose message was lost) and after the last attempt marks them `failed`.
"""

from __future__ import annotations

import logging
import socket
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from armada.games.registry import get_game
from armada.referee.framing import one_line
from armada.referee.match import MatchOutcome
from armada_web.bots import storage as bot_storage
from armada_web.matches import runner, services, storage
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant, Result

log = logging.getLogger(__name__)


def claim(match_id: int) -> Match | None:
    """Take a queued match for this worker (queued -> running), or None when another has it."""
    game = Match.objects.filter(pk=match_id).values_list("game", flat=True).first()
    if game is None:
        return None
    claimed = Match.objects.filter(pk=match_id, status=MatchStatus.QUEUED).update(
        status=MatchStatus.RUNNING, attempts=F("attempts") + 1, started=timezone.now(),
        worker=socket.gethostname()[:200], engine_version=_engine_version(game))
    if not claimed:
        return None
    return Match.objects.get(pk=match_id)


def _engine_version(game: str) -> str:
    """The engine this worker runs `game` on (recorded at the claim, so a void match says it too)."""
    try:
        return str(get_game(game).engine_version)[:40]
    except Exception:  # an unknown game: the run will be void and say why
        return ""


def _mine(match: Match) -> QuerySet[Match]:
    """The row as long as this attempt still holds it."""
    return Match.objects.filter(pk=match.pk, status=MatchStatus.RUNNING, attempts=match.attempts)


def void(match: Match, reason: str) -> str:
    """The platform failed: no result, no rating change (never a bot's loss)."""
    log.warning("match %s void (attempt %s): %s", match.pk, match.attempts, reason)
    updated = _mine(match).update(status=MatchStatus.VOID, finished=timezone.now(),
                                  reason=one_line(f"platform failure: {reason}", 480))
    return MatchStatus.VOID if updated else "superseded"


def execute(match: Match) -> str:
    """Play a claimed match and record it; returns the new status (or "superseded")."""
    participants = list(Participant.objects.filter(match=match).select_related("version", "version__bot")
                        .order_by("seat"))
    if [p.seat for p in participants] != [1, 2] or any(p.version is None for p in participants):
        return void(match, "a seat's bot version no longer exists")
    seats: dict[int, tuple[str, bytes]] = {}
    for p in participants:
        assert p.version is not None
        try:
            seats[p.seat] = (p.name, bot_storage.read_archive(p.version))
        except (OSError, ValueError) as exc:
            return void(match, f"the archive of seat {p.seat} could not be read from storage "
                               f"({exc.__class__.__name__})")
    try:
        outcome = runner.play(match.pk, match.game, match.seed, seats)
    except runner.PlatformFailure as exc:
        return void(match, str(exc))
    try:
        replay_name = storage.save_replay(match.pk, match.attempts, outcome.replay)
        log_names = {p.seat: storage.save_log(match.pk, match.attempts, p.seat, outcome.players[p.seat - 1].log)
                     for p in participants}
    except OSError as exc:
        return void(match, f"storage failed while saving the replay or logs ({exc.__class__.__name__}: {exc})")
    status = record(match, participants, outcome, replay_name, log_names)
    if status != MatchStatus.FINISHED:
        storage.delete([replay_name, *log_names.values()])
    return status


def _score(outcome: MatchOutcome, seat: int) -> float | None:
    planets = (outcome.result.scores or {}).get("planets")
    if isinstance(planets, dict) and isinstance(planets.get(str(seat)), int | float):
        return float(planets[str(seat)])
    return None


def record(match: Match, participants: list[Participant], outcome: MatchOutcome, replay_name: str,
           log_names: dict[int, str]) -> str:
    """In one transaction, if this attempt still holds the row: result, files, ratings, `finished`."""
    from armada_web.ladder import ranked

    winner = outcome.winner
    engine_version = str(outcome.replay.get("engine_version") or match.engine_version)[:40]
    with transaction.atomic():
        if not _mine(match).update(status=MatchStatus.FINISHED, turns=outcome.turns,
                                   outcome=outcome.result.to_dict(), replay=replay_name, reason="",
                                   engine_version=engine_version):
            return "superseded"
        statuses = (outcome.players[0].status, outcome.players[1].status)
        details = (outcome.players[0].detail, outcome.players[1].detail)
        changes: dict[int, Any] = {}
        if match.kind == MatchKind.RANKED and match.game == "galaxy":
            versions = (participants[0].version_id, participants[1].version_id)
            # `apply` locks both Rating rows first, so the finished times taken after it order the
            # matches of a version as their updates were applied (recompute_ratings replays that order).
            changes = ranked.apply(match.pk, timezone.now(), versions, winner, statuses, details)  # type: ignore[arg-type]
        Match.objects.filter(pk=match.pk).update(finished=timezone.now())
        for p in participants:
            report = outcome.players[p.seat - 1]
            p.result = Result.DRAW if winner is None else Result.WIN if winner == p.seat else Result.LOSS
            p.status, p.detail = report.status, one_line(report.detail, 480) if report.detail else ""
            p.score = _score(outcome, p.seat)
            p.log = log_names[p.seat]
            fields = ["result", "status", "detail", "score", "log"]
            if p.seat in changes:
                before, after = changes[p.seat]
                p.mu_before, p.sigma_before, p.mu_after, p.sigma_after = before.mu, before.sigma, after.mu, after.sigma
                fields += ["mu_before", "sigma_before", "mu_after", "sigma_after"]
            p.save(update_fields=fields)
    return MatchStatus.FINISHED


@shared_task(name="armada_web.matches.tasks.run_match", acks_late=True, reject_on_worker_lost=True,
             time_limit=settings.MATCH_TIME_LIMIT_S + 120, soft_time_limit=settings.MATCH_TIME_LIMIT_S + 60)
def run_match(match_id: int) -> str:
    """Run one match (a no-op when it is not queued: delivered twice, or done already)."""
    match = claim(match_id)
    if match is None:
        return "skipped"
    try:
        return execute(match)
    except Exception as exc:  # anything unforeseen is the platform's failure, never a bot's loss
        log.exception("match %s failed unexpectedly", match_id)
        return void(match, f"{exc.__class__.__name__}: {exc}")


def reap(stuck_after_s: int | None = None) -> dict[str, int]:
    """Re-queue matches a lost worker left `running` (or whose message was lost while `queued`);
    past the last attempt a stuck match is `failed`. Returns counts."""
    stuck_s = settings.ARMADA_MATCH_STUCK_S if stuck_after_s is None else stuck_after_s
    cutoff = timezone.now() - timedelta(seconds=stuck_s)
    counts = {"requeued": 0, "failed": 0, "resent": 0}
    for match in Match.objects.filter(status=MatchStatus.RUNNING, started__lte=cutoff):
        if match.attempts >= settings.ARMADA_MATCH_ATTEMPTS:
            if _mine(match).update(status=MatchStatus.FAILED, finished=timezone.now(),
                                   reason=f"failed: no run finished in {match.attempts} attempts (workers lost)"):
                counts["failed"] += 1
        elif _mine(match).update(status=MatchStatus.QUEUED, queued=timezone.now(),
                                 reason="re-queued: the worker running it was lost"):
            services.send(match.pk, match.kind)
            counts["requeued"] += 1
    for match in Match.objects.filter(status=MatchStatus.QUEUED, queued__lte=cutoff):
        if Match.objects.filter(pk=match.pk, status=MatchStatus.QUEUED, queued=match.queued).update(
                queued=timezone.now()):
            services.send(match.pk, match.kind)
            counts["resent"] += 1
    return counts


@shared_task(name="armada_web.matches.tasks.reap_matches")
def reap_matches() -> dict[str, int]:
    """Celery beat: see `reap`."""
    return reap()
