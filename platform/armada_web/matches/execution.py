"""Playing a claimed match and recording it exactly once.

A match is a job of the one lease helper (`armada_web.jobs.leases`, kind `MATCH`): the task claims
it (queued -> running), `execute` reads both seats' archives, plays through the platform's one
runner (`games.runner.play`), stores the replay and logs, and `record` writes the result, the
files' names and everything that depends on the result (the ladder's receivers of
`match_recorded`) in one transaction that first checks its own attempt still holds the row. A
platform failure makes the match `void` (no result, no rating change), except a sandbox failure
(the Docker engine gone before or during the game, an archive that cannot be read) and storage
that fails while the files are saved (what was saved is deleted), which give the match back for
another attempt while it has attempts left; a bot's fault is a result (its loss). Recording
retries a database that is briefly unreachable (`leases.retrying`).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from armada.referee.framing import one_line
from armada.referee.match import MatchOutcome
from armada.referee.seat import unbracketed
from armada.timings import totals
from armada_web.bots import storage as bot_storage
from armada_web.bots.models import BotVersion
from armada_web.games import spec
from armada_web.games.runner import PlatformFailure, SandboxFailure, Source, play
from armada_web.jobs import queues
from armada_web.jobs.leases import NOTE_CHARS, JobKind, Lease, retrying
from armada_web.matches import storage, tallies
from armada_web.matches.models import Match, MatchStatus, Participant, Result
from armada_web.matches.signals import match_recorded

log = logging.getLogger(__name__)

#: What a match's claim records besides the lease's own fields (`claim_fields`).
CLAIMED = ("worker", "host", "engine_version")

MATCH = JobKind(
    model=Match, waiting=MatchStatus.QUEUED, running=MatchStatus.RUNNING, given_up=MatchStatus.FAILED, note="reason",
    attempts=lambda: settings.ARMADA.match_attempts,
    stuck_after_s=lambda: settings.ARMADA.stuck_match_s,
    lost_note=lambda n: f"failed: no run finished in {n} attempts (workers lost)",
    requeued_note="re-queued: the worker running it was lost",
    task=queues.Task.RUN_MATCH,
    queues=queues.match_queues,
    # A re-queued match names no worker, host or start until its next claim (the API's "host" is empty).
    given_back={**dict.fromkeys(CLAIMED, ""), "started": None, "heartbeat": None},
)


def claim_fields(game: str, worker: str | None = None) -> dict[str, str]:
    """What a claim records besides the status: the worker (its Celery node name, `name@host`, or
    the host name), this worker host's name (ARMADA_HOST_NAME) and the engine it runs `game` on
    (so a void match says them too)."""
    try:
        engine = str(spec(game).engine.engine_version)[:40]
    except (KeyError, ValueError):  # an unknown game: the run will be void and say why
        engine = ""
    host = settings.ARMADA.worker_host[:100]
    return dict(zip(CLAIMED, ((worker or host)[:200], host, engine), strict=True))


def void(*, lease: Lease, reason: str, platform: bool = True) -> str:
    """The platform failed: no result, no rating change (never a bot's loss). `platform` False:
    the match cannot count for another cause (a seat's bot was deleted), which the reason says."""
    note = f"platform failure: {reason}" if platform else f"void: {reason}"
    # (or recorded by this attempt's own earlier try, whose answer a lost connection took: `retrying`)
    updated = lease.record(status=MatchStatus.VOID, finished=timezone.now(), reason=one_line(note, NOTE_CHARS)) \
        or lease.recorded(MatchStatus.VOID)
    # said once recorded: a worker host that lost the database said "void" every 5 s of a match the
    # site then played elsewhere (a trial)
    if updated:
        log.warning("match %s void (attempt %s): %s", lease.job_id, lease.attempt, reason)
    else:
        log.info("match %s: attempt %s not recorded as void (%s); another attempt holds it", lease.job_id,
                 lease.attempt, reason)
    return MatchStatus.VOID if updated else "superseded"


def deleted(lease: Lease, seat: int, when: str) -> str:
    """A seat's bot was deleted (its owner's doing, its versions gone): the match is void, nothing counted."""
    return void(lease=lease, reason=f"seat {seat}'s bot was deleted {when} (no result, no rating change)",
                platform=False)


def again(*, lease: Lease, reason: str) -> str:
    """The sandbox or the storage failed (not the bots): back to the queue for another attempt (the
    caller sends it), or void after the last one. Returns the new status."""
    if lease.last_attempt:
        return void(lease=lease, reason=reason)
    if lease.give_back(f"retrying after a platform failure: {reason}"):
        log.warning("match %s given back after attempt %s: %s", lease.job_id, lease.attempt, reason)
        return MatchStatus.QUEUED
    return "superseded"


def execute(*, lease: Lease) -> str:
    """Play a claimed match and record it; returns the new status (or "superseded")."""
    match = Match.objects.get(pk=lease.job_id)
    participants = list(Participant.objects.filter(match=match).select_related("version", "version__bot")
                        .order_by("seat"))
    if [p.seat for p in participants] != [1, 2]:
        return void(lease=lease, reason="the match does not have two seats")
    gone = [p.seat for p in participants if p.version is None]
    if gone:
        return deleted(lease, gone[0], "before the match was played")
    seats: dict[int, tuple[str, Source | bytes]] = {}
    for p in participants:
        assert p.version is not None
        if not p.version.archive.name:
            return void(lease=lease,
                        reason=f"the archive of seat {p.seat} could not be read from storage (it was deleted)")
        # Read from storage only when this host has not unpacked it yet (storage.unpacked).
        seats[p.seat] = (p.name, bot_storage.source(p.version))
    try:
        config = settings.ARMADA.game(match.game).match_config
        outcome = play(match_id=match.pk, game=match.game, seed=match.seed, seats=seats, config=config)
    except SandboxFailure as exc:
        return again(lease=lease, reason=str(exc))
    except (PlatformFailure, KeyError) as exc:
        return void(lease=lease, reason=str(exc))
    saved: list[str] = []
    try:
        stored = storage.store_replay(match.pk, lease.attempt, outcome.replay, {p.seat: p.name for p in participants})
        saved.append(stored.name)
        log_names: dict[int, str] = {}
        drawing_names: dict[int, str] = {}
        for p in participants:
            report = outcome.players[p.seat - 1]
            log_names[p.seat] = storage.save_log(match.pk, lease.attempt, p.seat, report.log)
            saved.append(log_names[p.seat])
            if report.debug.get("turns"):  # what the bot drew: beside its log, private like it
                drawing_names[p.seat] = storage.save_drawing(match.pk, lease.attempt, p.seat, report.debug)
                saved.append(drawing_names[p.seat])
    except OSError as exc:  # given back, as a sandbox's failure is (a chaos trial: a storage outage of 40 s
        storage.delete(saved)  # voided four matches at their first attempt); void after the last attempt
        return again(lease=lease,
                     reason=f"storage failed while saving the replay or logs ({exc.__class__.__name__}: {exc})")
    status = retrying(lambda: record(lease=lease, match=match, participants=participants, outcome=outcome,
                                     replay_name=stored.name, log_names=log_names, stored=stored,
                                     drawing_names=drawing_names),
                      what=f"the database (recording match {match.pk})")
    if status != MatchStatus.FINISHED:
        storage.delete(saved)
    return status


def _score(outcome: MatchOutcome, seat: int) -> float | None:
    planets = (outcome.result.scores or {}).get("planets")
    if isinstance(planets, dict) and isinstance(planets.get(str(seat)), int | float):
        return float(planets[str(seat)])
    return None


def record(*, lease: Lease, match: Match, participants: list[Participant], outcome: MatchOutcome, replay_name: str,
           log_names: dict[int, str], stored: storage.Stored | None = None,
           drawing_names: dict[int, str] | None = None) -> str:
    """In one transaction, if this attempt still holds the row: result, files (with the replay's
    size and checksum when `stored` is given; each seat's drawings when it drew), the kept tallies
    (matches.tallies), what depends on the result (`match_recorded`), then `finished`."""
    winner = outcome.winner
    engine_version = str(outcome.replay.get("engine_version") or match.engine_version)[:40]
    with transaction.atomic():
        # A seat's bot deleted while the match played (its versions went with it): nothing to count.
        # Locked, so a deletion now waits for this transaction and takes the result away with its rows.
        # (bots.services.delete_bot locks a bot's versions first too, in pk order: no deadlock between them)
        # NO KEY UPDATE: it stops a delete, not the new matches and rating changes that refer to them.
        kept = set(BotVersion.objects.select_for_update(no_key=True).filter(pk__in=[p.version_id for p in participants])
                   .order_by("pk").values_list("pk", flat=True))
        gone = [p.seat for p in participants if p.version_id not in kept]
        if gone:
            if lease.recorded(MatchStatus.FINISHED):  # this attempt's commit (answer lost), then the deletion
                return MatchStatus.FINISHED
            return deleted(lease, gone[0], "during the match")
        if not lease.record(status=MatchStatus.FINISHED, turns=outcome.turns, outcome=outcome.result.to_dict(),
                            replay=replay_name, replay_size=stored.size if stored else None,
                            replay_sha256=stored.sha256 if stored else "", reason="", engine_version=engine_version):
            # Recorded already by this very attempt (a commit whose answer was lost, then retried)?
            return MatchStatus.FINISHED if lease.recorded(MatchStatus.FINISHED) else "superseded"
        for p in participants:
            report = outcome.players[p.seat - 1]
            p.result = Result.DRAW if winner is None else Result.WIN if winner == p.seat else Result.LOSS
            p.status, p.detail = report.status, one_line(report.detail, 480) if report.detail else ""
            p.score = _score(outcome, p.seat)
            p.log = log_names[p.seat]
            p.debug = (drawing_names or {}).get(p.seat, "")
            p.timing = totals(outcome.replay, p.seat)
            if p.timing is not None and report.time.slowest:  # which request: "command, turn 2", "init"
                p.timing["max_where"] = unbracketed(report.time.slowest)
            p.save(update_fields=["result", "status", "detail", "score", "log", "debug", "timing"])
        tallies.count_result(seats=participants)
        # A receiver that orders its own rows by `finished` (the ladder's rating history) locks them
        # first, so the time taken after it orders the matches as their updates were applied.
        match_recorded.send(sender=Match, match=match, seats=participants, outcome=outcome)
        Match.objects.filter(pk=match.pk).update(finished=timezone.now())
    return MatchStatus.FINISHED
