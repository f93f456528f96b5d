"""The one lease helper for the jobs workers run: a version's validation and a match.

A job is a row with a status, an attempt count and the times it was queued and started. A
worker *claims* it with a conditional update (waiting -> running, attempts + 1), which only
one delivery of the task can win; the `Lease` it gets back names the row and the attempt, and
every later write goes through `Lease.record`, an update that only matches while that attempt
still holds the row. So a task delivered twice does nothing the second time, and a worker that
was given up on (the reaper re-queued its job) can no longer record anything: each job counts
once.

A running job shows it is alive: the claim records its holder (host, pid and start time of the
worker process) and the worker beats (`Lease.beating`: a thread updates `heartbeat` every
ARMADA_HEARTBEAT_S while the job plays). `reap` (beat, every ARMADA_REAP_S) gives back a running
job whose heartbeat is older than ARMADA_HEARTBEAT_TIMEOUT_S, or fails it after its last
attempt, and sends again a waiting job whose message the broker no longer holds (Redis emptied
or restarted) after ARMADA_LOST_MESSAGE_S; a second copy is harmless, the claim decides. A
delivery that finds its job running under a holder of this host that is gone (a worker child
killed: Celery delivers its message again at once) takes it over without waiting for the reaper.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F, Q, QuerySet
from django.db.utils import InterfaceError, OperationalError
from django.utils import timezone

from armada.referee.framing import one_line
from armada_web.jobs import broker
from armada_web.web.backoff import with_backoff

log = logging.getLogger(__name__)
#: Longest note (a one-line reason) written into a job row.
NOTE_CHARS = 480
#: Errors that mean "the database is not reachable now" (retried), not "this write is wrong".
UNREACHABLE = (OperationalError, InterfaceError)
T = TypeVar("T")


@dataclass(frozen=True)
class JobKind:
    """A kind of job: its model, its statuses, how many times it is tried, where its messages go."""

    model: type[models.Model]
    #: Status of a job waiting for a worker, of one a worker holds, of one given up on.
    waiting: str
    running: str
    given_up: str
    #: The text field that holds the latest one-line reason ("detail", "reason").
    note: str
    #: How many attempts, and after how many seconds running (or waiting) the reaper acts whatever the
    #: heartbeat or the broker say (the backstop: a job may never take longer than that).
    attempts: Callable[[], int]
    stuck_after_s: Callable[[], int]
    #: The note of a job given up on after `n` attempts, and of one given back to the queue.
    lost_note: Callable[[int], str]
    requeued_note: str
    #: The task that runs a job (its first argument is the job's id) and the queues it is sent to.
    task: str = ""
    queues: Callable[[], tuple[str, ...]] = tuple
    #: The fields a job given back gets besides its status, queue time and note: e.g. a match clears
    #: what its claim recorded (an organiser's trial: a re-queued match still named the lost host). A
    #: version keeps its `started`, which fair validation orders owners by.
    given_back: Mapping[str, Any] = field(default_factory=dict)
    #: Called with a job's id once a reaper or a take-over has given it up after its last attempt
    #: (e.g. to tell the apps above; a worker's own give-up tells them itself).
    on_give_up: Callable[[int], None] | None = None


def process_start(pid: int | str = "self") -> int | None:
    """When process `pid` started (clock ticks since boot); None when it does not exist or is a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] in ("Z", "X"):  # dead, not yet reaped by its parent
        return None
    return int(fields[19])


def host_id() -> str:
    """Where this process's pids mean something: "host name/pid namespace". Containers given the
    machine's host name (`network_mode: host`) keep pid namespaces of their own, so a pid is
    looked up only by processes of its own namespace (/proc/self/ns/pid's inode names it)."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        namespace = 0
    return f"{socket.gethostname()[:150]}/{namespace}"


def holder_id() -> str:
    """This process as a job's holder: "host/pid namespace:pid:start time"."""
    return f"{host_id()}:{os.getpid()}:{process_start() or 0}"


def holder_gone(holder: str) -> bool:
    """Is the holder a process of this host and pid namespace that no longer runs? (False when it
    cannot be told: another host or namespace, or an older holder without its namespace.)"""
    host, _, rest = holder.partition(":")
    pid, _, start = rest.partition(":")
    if host != host_id() or not pid.isdigit() or not start.isdigit():
        return False
    return process_start(int(pid)) != int(start)


@dataclass(frozen=True)
class Lease:
    """Attempt `attempt` of job `job_id`, held by the worker that claimed it: `holder` (`holder_id`
    at the claim; for `take_over` and `reap`, the holder they act for, as the row named it; empty:
    any holder).

    The holder is part of what holds the row, not only the attempt's number: staff re-running a
    version's validation (`bots.services.revalidate`) count its attempts from 0 again, so a stalled
    worker's attempt 1 and a new worker's attempt 1 can exist at once; only the new one holds it."""

    kind: JobKind
    job_id: int
    attempt: int
    holder: str = ""

    def _mine(self) -> dict[str, Any]:
        return {"attempts": self.attempt, **({"holder": self.holder} if self.holder else {})}

    def rows(self) -> QuerySet[Any]:
        """The job's row, as long as this attempt still holds it (empty otherwise)."""
        return self.kind.model.objects.filter(pk=self.job_id, status=self.kind.running,  # type: ignore[attr-defined]
                                              **self._mine())

    def held(self) -> bool:
        """Whether this attempt still holds the job."""
        return bool(self.rows().exists())

    def record(self, **fields: Any) -> bool:
        """Write `fields` if this attempt still holds the job (one conditional update); False when not."""
        return bool(self.rows().update(**fields))

    def recorded(self, status: str) -> bool:
        """Did this attempt end the job with `status`? (A later attempt would have raised the count.)"""
        model: Any = self.kind.model
        return bool(model.objects.filter(pk=self.job_id, status=status, **self._mine()).exists())

    def give_back(self, note: str, now: datetime | None = None) -> bool:
        """Back to the queue for another attempt (the caller sends it again when this is True), with
        the kind's `given_back` fields."""
        return self.record(status=self.kind.waiting, queued=now or timezone.now(), **self.kind.given_back,
                           **{self.kind.note: one_line(note, NOTE_CHARS)})

    def give_up(self, note: str, now: datetime | None = None) -> bool:
        """No more attempts: the job ends in the kind's given-up status with `note`."""
        return self.record(status=self.kind.given_up, finished=now or timezone.now(),
                           **{self.kind.note: one_line(note, NOTE_CHARS)})

    @property
    def last_attempt(self) -> bool:
        return self.attempt >= self.kind.attempts()

    def beat(self) -> bool:
        """The worker is alive: the heartbeat is now (False when this attempt no longer holds the job)."""
        return self.record(heartbeat=timezone.now())

    @contextlib.contextmanager
    def beating(self, every_s: float | None = None) -> Iterator[None]:
        """While the block runs, a thread beats every `every_s` seconds (ARMADA_HEARTBEAT_S).

        A database that does not answer for a while costs beats, not the job (the timeout is
        several beats long). Inside an open transaction (tests) there is no thread: another
        connection could not see the row."""
        if connection.in_atomic_block:
            yield
            return
        every = float(every_s if every_s is not None else settings.ARMADA.heartbeat_s)
        stop = threading.Event()

        def run() -> None:
            try:
                while not stop.wait(every):
                    try:
                        if not self.beat():
                            return  # given up on: nothing left to keep alive
                    except UNREACHABLE as exc:
                        log.warning("heartbeat of %s %s missed: %s", self.kind.model.__name__, self.job_id, exc)
                        connection.close()
            finally:
                connection.close()  # this thread's own connection

        thread = threading.Thread(target=run, daemon=True, name=f"armada-heartbeat-{self.job_id}")
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5)


def claim(*, kind: JobKind, job_id: int, **fields: Any) -> Lease | None:
    """Take a waiting job for this worker (waiting -> running, attempts + 1, its holder and first
    heartbeat, `fields` set too), or None when it is not waiting (another delivery has it, or it is
    done). A job running under a holder of this host that is gone is taken over at once."""
    model: Any = kind.model
    holder = holder_id()
    for _ in range(2):
        now = timezone.now()
        claimed = model.objects.filter(pk=job_id, status=kind.waiting).update(
            status=kind.running, attempts=F("attempts") + 1, started=now, heartbeat=now, holder=holder,
            finished=None, **fields)
        if claimed:
            attempt = model.objects.filter(pk=job_id).values_list("attempts", flat=True).first()
            return Lease(kind, job_id, int(attempt or 0), holder)
        if not take_over(kind=kind, job_id=job_id):
            return None
    return None


def take_over(*, kind: JobKind, job_id: int) -> bool:
    """Give back a running job whose holder is a process of this host that is gone (True), or fail
    it after its last attempt; False when its holder lives, or may (another host)."""
    model: Any = kind.model
    row = model.objects.filter(pk=job_id, status=kind.running).values_list("attempts", "holder").first()
    if row is None or not holder_gone(row[1]):
        return False
    lease = Lease(kind, job_id, row[0], row[1])  # that holder's, not another claim of the same attempt number
    log.warning("%s %s: its worker %s is gone; taken over", model.__name__, job_id, row[1])
    if lease.last_attempt:
        with transaction.atomic():  # given up and its consequence together, or neither (done again later)
            if lease.give_up(kind.lost_note(row[0])) and kind.on_give_up is not None:
                kind.on_give_up(job_id)
        return False
    return lease.give_back(kind.requeued_note)


#: Seconds beyond ARMADA_LOST_MESSAGE_S a worker may hold a waiting job's message without claiming
#: the job (a message sent with a countdown waits its few seconds in the worker) before the reaper
#: sends it again (a reliability trial: a worker killed holding one left a match queued for 35 minutes).
TAKEN_GRACE_S = 60


def reap(*, kind: JobKind, send: Callable[[Any], None], stuck_after_s: int | None = None,
         now: datetime | None = None) -> dict[str, int]:
    """Take back what lost workers and lost messages left behind; returns counts.

    A running job whose heartbeat is older than ARMADA_HEARTBEAT_TIMEOUT_S, or that has run for
    longer than `stuck_after_s` (default: the kind's), is given back to the queue and sent again,
    or given up on after its last attempt (then `kind.on_give_up` is called with its id). A
    waiting job whose message the broker no longer holds is sent again once it has waited
    ARMADA_LOST_MESSAGE_S (when the broker cannot be read: once it has waited `stuck_after_s`);
    so is one whose message a worker took more than ARMADA_LOST_MESSAGE_S + TAKEN_GRACE_S ago
    without claiming the job (that worker died holding it: the broker would keep it for an hour);
    its claim makes a second delivery harmless.
    """
    now = now or timezone.now()
    model: Any = kind.model
    config = settings.ARMADA
    cutoff = now - timedelta(seconds=kind.stuck_after_s() if stuck_after_s is None else stuck_after_s)
    silent = now - timedelta(seconds=config.heartbeat_timeout_s)
    counts = {"requeued": 0, "given_up": 0, "resent": 0}
    lost = (Q(heartbeat__lte=silent) | Q(heartbeat__isnull=True, started__lte=silent) | Q(started__lte=cutoff))
    for job in model.objects.filter(lost, status=kind.running):
        lease = Lease(kind, job.pk, job.attempts, job.holder)  # the lost holder's (a new claim is untouched)
        name = f"{model._meta.verbose_name} {job.pk}"
        # the worker host's name first, when the job keeps it (a match: ARMADA_HOST_NAME; a trial read
        # "vm/4026533249:22:3065271" alone, every host of one machine being "vm")
        holder = " ".join(filter(None, (getattr(job, "host", ""), job.holder))) or "?"
        if lease.last_attempt:
            with transaction.atomic():  # given up and its consequence together, or neither (the next reap)
                if lease.give_up(kind.lost_note(job.attempts), now):
                    if kind.on_give_up is not None:
                        kind.on_give_up(job.pk)
                    counts["given_up"] += 1
                    log.warning("%s: %s (its last worker: %s)", name, kind.lost_note(job.attempts), holder)
        elif lease.give_back(kind.requeued_note, now):
            send(job)
            counts["requeued"] += 1
            log.warning("%s: %s (%s, attempt %d of %d)", name, kind.requeued_note, holder, job.attempts,
                        kind.attempts())
    waiting = list(model.objects.filter(status=kind.waiting,
                                        queued__lte=now - timedelta(seconds=config.lost_message_s)))
    present = broker.job_ids(kind.queues(), kind.task, taken_within_s=config.lost_message_s + TAKEN_GRACE_S,
                             now=now.timestamp()) if waiting and kind.task else None
    for job in waiting:
        if job.queued > cutoff and (present is None or job.pk in present):
            continue  # its message is (or may be) still there
        if model.objects.filter(pk=job.pk, status=kind.waiting, queued=job.queued).update(queued=now):
            send(job)
            counts["resent"] += 1
            log.info("%s %s: sent to its queue again (its message was lost)", model._meta.verbose_name, job.pk)
    return counts


def retrying(call: Callable[[], T], within_s: float | None = None, what: str = "the database") -> T:
    """`call()`, tried again with back-off while the database is unreachable, for up to `within_s`
    seconds (ARMADA_DB_RETRY_S); the connection is closed between tries so the next opens anew.
    `call` must be safe to run again (one transaction)."""
    def again(exc: Exception) -> bool:
        return isinstance(exc, UNREACHABLE) and not transaction.get_connection().in_atomic_block

    def before_next(exc: Exception, pause: float) -> None:
        log.warning("%s did not answer or gave the transaction up (%s); trying again in %.1f s", what, exc, pause)
        connection.close()

    return with_backoff(call, again=again, within_s=float(settings.ARMADA.db_retry_s if within_s is None else within_s),
                        first_s=0.5, cap_s=5.0, before_next=before_next)
