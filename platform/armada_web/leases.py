"""The one lease helper for the jobs workers run: a version's validation and a match.

A job is a row with a status, an attempt count and the times it was queued and started. A
worker *claims* it with a conditional update (waiting -> running, attempts + 1), which only
one delivery of the task can win; the `Lease` it gets back names the row and the attempt, and
every later write goes through `Lease.record`, an update that only matches while that attempt
still holds the row. So a task delivered twice does nothing the second time, and a worker that
was given up on (the reaper re-queued its job) can no longer record anything: each job counts
once. `reap` gives back jobs whose worker was lost (or fails them after the last attempt) and
re-sends waiting jobs whose message was lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import models
from django.db.models import F, QuerySet
from django.utils import timezone

from armada.referee.framing import one_line

#: Longest note (a one-line reason) written into a job row.
NOTE_CHARS = 480


@dataclass(frozen=True)
class JobKind:
    """A kind of job: its model, its statuses and how many times it is tried."""

    model: type[models.Model]
    #: Status of a job waiting for a worker, of one a worker holds, of one given up on.
    waiting: str
    running: str
    given_up: str
    #: The text field that holds the latest one-line reason ("detail", "reason").
    note: str
    #: How many attempts, and after how many seconds running (or waiting) the reaper acts.
    attempts: Callable[[], int]
    stuck_after_s: Callable[[], int]
    #: The note of a job given up on after `n` attempts, and of one given back to the queue.
    lost_note: Callable[[int], str]
    requeued_note: str


@dataclass(frozen=True)
class Lease:
    """Attempt `attempt` of job `job_id`, held by the worker that claimed it."""

    kind: JobKind
    job_id: int
    attempt: int

    def rows(self) -> QuerySet[Any]:
        """The job's row, as long as this attempt still holds it (empty otherwise)."""
        return self.kind.model.objects.filter(pk=self.job_id, status=self.kind.running,  # type: ignore[attr-defined]
                                              attempts=self.attempt)

    def held(self) -> bool:
        """Whether this attempt still holds the job."""
        return bool(self.rows().exists())

    def record(self, **fields: Any) -> bool:
        """Write `fields` if this attempt still holds the job (one conditional update); False when not."""
        return bool(self.rows().update(**fields))

    def give_back(self, note: str, now: datetime | None = None) -> bool:
        """Back to the queue for another attempt (the caller sends it again when this is True)."""
        return self.record(status=self.kind.waiting, queued=now or timezone.now(),
                           **{self.kind.note: one_line(note, NOTE_CHARS)})

    def give_up(self, note: str, now: datetime | None = None) -> bool:
        """No more attempts: the job ends in the kind's given-up status with `note`."""
        return self.record(status=self.kind.given_up, finished=now or timezone.now(),
                           **{self.kind.note: one_line(note, NOTE_CHARS)})

    @property
    def last_attempt(self) -> bool:
        return self.attempt >= self.kind.attempts()


def claim(kind: JobKind, job_id: int, **fields: Any) -> Lease | None:
    """Take a waiting job for this worker (waiting -> running, attempts + 1, `fields` set too), or
    None when it is not waiting (another delivery has it, or it is done)."""
    model: Any = kind.model
    claimed = model.objects.filter(pk=job_id, status=kind.waiting).update(
        status=kind.running, attempts=F("attempts") + 1, started=timezone.now(), finished=None, **fields)
    if not claimed:
        return None
    attempt = model.objects.filter(pk=job_id).values_list("attempts", flat=True).first()
    return Lease(kind, job_id, int(attempt or 0))


def reap(kind: JobKind, send: Callable[[Any], None], stuck_after_s: int | None = None,
         now: datetime | None = None, given_up: Callable[[Any], None] | None = None) -> dict[str, int]:
    """Take back what lost workers and lost messages left behind; returns counts.

    A job running for longer than `stuck_after_s` (default: the kind's) is given back to the
    queue and sent again, or given up on after its last attempt (then `given_up(job)` is called,
    e.g. to tell the apps above); a job waiting that long since it was queued is sent again (its
    claim makes a second delivery harmless).
    """
    now = now or timezone.now()
    model: Any = kind.model
    cutoff = now - timedelta(seconds=kind.stuck_after_s() if stuck_after_s is None else stuck_after_s)
    counts = {"requeued": 0, "given_up": 0, "resent": 0}
    for job in model.objects.filter(status=kind.running, started__lte=cutoff):
        lease = Lease(kind, job.pk, job.attempts)
        if lease.last_attempt:
            if lease.give_up(kind.lost_note(job.attempts), now):
                counts["given_up"] += 1
                if given_up is not None:
                    given_up(job)
        elif lease.give_back(kind.requeued_note, now):
            send(job)
            counts["requeued"] += 1
    for job in model.objects.filter(status=kind.waiting, queued__lte=cutoff):
        if model.objects.filter(pk=job.pk, status=kind.waiting, queued=job.queued).update(queued=now):
            send(job)
            counts["resent"] += 1
    return counts
