"""Validating a version: its game against a starter bot in the sandbox, and the result recorded.

A version is a job of the one lease helper (`armada_web.jobs.leases`, kind `VALIDATION`): the task
(bots/tasks.py) claims it (pending -> validating), `run` plays the validation game of the
version's archive at seat 1 against the game's starter (`GameSpec.validation_opponent`) at
seat 2 through the platform's one runner (`games.runner.play`), and records what the uploaded
bot did (with the game's replay, which its owner can watch on the version's page) only while its
own attempt still holds the row. A platform fault gives the version back
for another attempt, and after the last one makes it `error` (never the bot's fault).

Validation is fair between users: a worker takes not the version its message names but the
fairest one waiting (`claim_next`): versions of users with no validation running first, then of
the user whose last validation started longest ago, then the oldest upload. So one user's slow
uploads never make another's wait longer than the validation game running now, which its own
time limits bound; each message still validates one version.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, Max, OuterRef, Subquery
from django.utils import timezone

from armada.botspec import BUILTIN_PREFIX, starter_file
from armada.referee.framing import one_line
from armada.replay import with_bot_names
from armada_web.bots import storage
from armada_web.bots.activation import refresh_active
from armada_web.bots.logic.resources import resources_used
from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.bots.signals import validation_failed, validation_finished
from armada_web.games import spec
from armada_web.games.runner import ArchiveUnpackable, PlatformFailure, Source, play
from armada_web.jobs import queues
from armada_web.jobs.leases import JobKind, Lease, claim, retrying, take_over
from armada_web.storage.archives import check_upload
from armada_web.web.inputs import made_storable

log = logging.getLogger(__name__)
#: Bytes of the bot's stderr kept with the version (the end of it).
LOG_KEEP = 16 * 1024

VALIDATION = JobKind(
    model=BotVersion, waiting=VersionStatus.PENDING, running=VersionStatus.VALIDATING, given_up=VersionStatus.ERROR,
    note="detail",
    attempts=lambda: settings.ARMADA.validation_attempts,
    stuck_after_s=lambda: settings.ARMADA.validation_stuck_s,
    lost_note=lambda n: f"platform failure: the worker was lost, {n} attempts without a result; "
                        "not your bot's fault",
    requeued_note="re-queued: the worker validating it was lost",
    task=queues.Task.VALIDATE_VERSION,
    queues=lambda: (queues.name(queues.Role.VALIDATION),),
    on_give_up=lambda version_id: given_up(BotVersion.objects.get(pk=version_id)),
)
#: Waiting versions a worker considers at once (the fairest first).
FAIR_WINDOW = 20


def fair_order(limit: int = FAIR_WINDOW) -> list[int]:
    """Ids of pending versions, the fairest first: owners with no validation running, then the owner
    whose latest validation started longest ago (never first), then the oldest upload."""
    mine = BotVersion.objects.filter(bot__owner=OuterRef("bot__owner"))
    latest = mine.order_by().values("bot__owner").annotate(latest=Max("started")).values("latest")
    rows = (BotVersion.objects.filter(status=VersionStatus.PENDING)
            .annotate(busy=Exists(mine.filter(status=VersionStatus.VALIDATING)), latest=Subquery(latest))
            .order_by("busy", F("latest").asc(nulls_first=True), "queued", "pk")
            .values_list("pk", flat=True)[:limit])
    return list(rows)


def claim_next(preferred: int | None = None) -> Lease | None:
    """Claim the fairest pending version (`fair_order`); `preferred` (the message's version) is
    first taken back if a dead process of this host holds it (`leases.take_over`), and tried too
    when it is waiting but outside the window. None when none is left to claim."""
    if preferred is not None:
        take_over(kind=VALIDATION, job_id=preferred)  # its worker child was killed here: waiting again, fairly
    order = fair_order()
    if preferred is not None and preferred not in order:
        order.append(preferred)
    for version_id in order:
        lease = claim(kind=VALIDATION, job_id=version_id)
        if lease is not None:
            return lease
    return None


@dataclass
class ValidationReport:
    """What the uploaded bot (seat 1) did: status and detail (protocol.md), log, its name and orders, and
    the game's replay (None when no game was played)."""

    status: str
    detail: str
    log: str
    name: str
    orders: dict[str, Any] | None
    engine_version: str
    replay: dict[str, Any] | None = None
    #: The exceptions its bot library caught and went on from (`armada.referee.match.PlayerReport`).
    exceptions: int = 0
    first_exception: str = ""
    #: What it used against its budgets (`bots.logic.resources`); empty when it never ran.
    resources: dict[str, int | None] = field(default_factory=dict)


def validation_game(*, game: str, archive: Source | bytes, bot_name: str, version_id: int,
                    seed: int) -> ValidationReport:
    """Play the validation game of `archive` (a stored bot archive) and report on seat 1; its replay keeps
    what seat 1 drew (`debug`, as `armada play --replay` writes it): only its owner and staff get it."""
    game_spec = spec(game)
    opponent_name = game_spec.validation_opponent
    with check_upload(name="main.py", data=starter_file(opponent_name, game).read_bytes()) as bundle:
        opponent = bundle.archive
    seats: dict[int, tuple[str, Source | bytes]] = {1: (bot_name, archive),
                                                    2: (BUILTIN_PREFIX + opponent_name, opponent)}
    game_config = settings.ARMADA.game(game)
    outcome = play(match_id=f"validation-{version_id}", game=game, seed=seed, seats=seats,
                   config=game_config.validation_config, purpose="validation")
    mine, theirs = outcome.players
    if theirs.status != "ok" and mine.status == "ok":
        raise PlatformFailure(f"the reference bot failed ({theirs.status}: {theirs.detail})")
    orders = None
    if game_spec.keeps_orders and mine.status == "ok":
        orders = outcome.replay["steps"][0]["answers"]["1"]
    # the seats as the version's page names them (a trial: offline, "Prober vs Random")
    replay = with_bot_names(outcome.replay, {1: bot_name, 2: f"{opponent_name} starter"})
    if mine.debug.get("turns"):  # private like the log (owner and staff): the viewer draws what the bot drew
        replay = {**replay, "debug": {"1": mine.debug}}
    return ValidationReport(
        # (the bot writes its log, and so its first caught exception's line, as it likes: a security
        # review's NUL on stderr made PostgreSQL refuse the record, the validation retried, then `error`)
        status=mine.status, detail=made_storable(mine.detail), log=kept_log(made_storable(mine.log)),
        name=mine.name, orders=orders, exceptions=mine.exceptions,
        first_exception=made_storable(mine.first_exception),
        engine_version=str(outcome.replay.get("engine_version") or game_spec.engine.engine_version),
        replay=replay,
        resources=resources_used(replay=replay, seat=1, status=mine.status,
                                 memory_peak_bytes=mine.memory_peak_bytes, init_budget_ms=game_config.times.init_ms,
                                 memory_limit_mib=game_config.sandbox.memory_mb),
    )


def kept_log(log: str, keep: int = LOG_KEEP) -> str:
    """The validation game's log as kept: whole up to `keep` characters, else its first and last
    lines within `keep`, a line saying how much was left out between them (the first error is
    usually the one to read)."""
    if len(log) <= keep:
        return log
    half = keep // 2
    head = log[:half].rpartition("\n")[0] or log[:half]
    tail = log[-half:].partition("\n")[2] or log[-half:]
    gone = len(log) - len(head) - len(tail)
    return f"{head}\n[armada] ... {gone} characters of the log left out here ...\n{tail}"


def caught(report: ValidationReport) -> str:
    """A valid version's note when its bot library caught exceptions and went on: how many, where
    the first was and its type (public, as the detail is: the message itself is in the private log)."""
    if not report.exceptions:
        return ""
    many = "an exception" if report.exceptions == 1 else f"{report.exceptions} exceptions"
    return one_line(f"its bot caught {many} and went on{_first(report)}: see its log; `armada play` "
                    "shows them too", 480)


#: Where an exception was caught, as `armada.logmarks.exception_summary` says it of the library's line:
#: a turn, or one of the requests without one the library answers (docs/protocol.md), never a bot's word.
_WHERE = re.compile(r"at turn \d+|in (?:init|orders)")


def _first(report: ValidationReport) -> str:
    """", the first at turn 1 (ValueError)": where the first exception caught was, and its type; ""
    when the line is not the library's (a bot may print a line like it: a security review had its
    own words shown in its public detail)."""
    where, _, what = report.first_exception.partition(": ")
    if not _WHERE.fullmatch(where):
        return ""
    kind = what.partition(":")[0].strip()
    return f", the first {where}" + (f" ({kind})" if kind.isidentifier() else "")


def raised_every_turn(report: ValidationReport) -> str:
    """Why a bot that ran to the end is invalid all the same: its library caught at least as many
    exceptions (one line each, D-R-10) as the game had turns for seat 1, so in a typical such game
    its code failed at every turn and each answer of that phase was the library's fallback: a
    `command` that always raises never sends a fleet (D-S-35); "" otherwise."""
    if not report.exceptions or report.replay is None:
        return ""
    asked = [step for step in report.replay.get("steps", []) if "1" in step.get("answers", {})]
    turns = len({step.get("turn") for step in asked})
    if not 0 < turns <= report.exceptions:
        return ""
    every = "its one turn" if turns == 1 else f"its {turns} turns"
    return one_line(f"exceptions: its bot raised {report.exceptions} exception{'s' if report.exceptions > 1 else ''} "
                    f"in {every} ({len(asked)} request{'s' if len(asked) > 1 else ''}){_first(report)}: at least "
                    "one a turn, each answered by the library's fallback, not the bot; see its log; `armada play` "
                    "shows them too", 480)


def run(lease: Lease) -> str:
    """Validate the claimed version and record the outcome; returns its new status
    ("superseded" when the attempt no longer held the row)."""
    version = BotVersion.objects.select_related("bot").get(pk=lease.job_id)
    if not version.archive.name:
        return platform_failure(lease, "the archive could not be read from storage (it was deleted)")
    try:  # read from storage only when this host has not unpacked it yet (storage.unpacked)
        report = validation_game(game=version.bot.game, archive=storage.source(version), bot_name=version.bot.name,
                                 version_id=version.pk, seed=version.validation_seed)
    except ArchiveUnpackable as exc:
        if exc.seat != 1:
            return platform_failure(lease, str(exc))
        report = ValidationReport(status="invalid", detail=f"the archive cannot be unpacked: {exc.reason}; "
                                  "upload it again", log="", name="", orders=None, engine_version="")
    except PlatformFailure as exc:
        return platform_failure(lease, str(exc))
    broken = raised_every_turn(report) if report.status == "ok" else ""
    ok = report.status == "ok" and not broken
    status = VersionStatus.VALID if ok else VersionStatus.INVALID
    detail = caught(report) if ok else broken or one_line(f"{report.status}: {report.detail}", 480)
    replay = kept_replay(version, lease.attempt, report)
    def save() -> bool:
        with transaction.atomic():
            recorded = lease.record(status=status, detail=detail, log=report.log, orders=report.orders,
                                    race_name=report.name[:40] if ok else "", replay=replay,
                                    engine_version=report.engine_version[:40], resources=report.resources,
                                    finished=timezone.now())
            if recorded and ok:
                refresh_active(bot=version.bot)
            elif recorded:
                # In the recording transaction: a retry after a rollback sends it again, once.
                validation_failed.send(sender=BotVersion, version=version)
                fall_back(version)
            if recorded:
                finished(version, status)
        return recorded or lease.recorded(status)  # or this attempt's commit went through before

    recorded = retrying(save, what=f"the database (recording the validation of version {version.pk})")
    if recorded and version.replay.name and version.replay.name != replay:
        storage.delete_quietly(version.replay.name)  # the replay of an earlier validation of this version
    if not recorded and replay:
        storage.delete_quietly(replay)
    return status if recorded else "superseded"


def kept_replay(version: BotVersion, attempt: int, report: ValidationReport) -> str:
    """Store the validation game's replay, for its owner to watch (docs/site.md); its name, or '' when no
    game was played or the storage refused it (the validation's result stands without it)."""
    if report.replay is None:
        return ""
    try:
        return storage.save_validation_replay(version, attempt, report.replay)
    except OSError as exc:
        log.warning("the replay of version %s's validation was not stored: %s", version.pk, exc)
        return ""


def given_up(version: BotVersion) -> None:
    """A version's validation was given up on (`error`): the apps above are told, and a bot whose
    active version it was plays its newest valid one again (`fall_back`)."""
    validation_failed.send(sender=BotVersion, version=version)
    fall_back(version)
    finished(version, VersionStatus.ERROR)


def fall_back(version: BotVersion) -> None:
    """A version that was its bot's active one ended invalid or in error (staff validated it again,
    and it failed, or the platform did): the bot's newest valid version plays again (`refresh_active`),
    so a failure of the platform's does not bench the bot. A pin on it goes (only a valid version may
    be active; the version's page says what happened); a retired bot keeps its record as it was.
    The bot's row is locked first: an owner pinning another version meanwhile keeps that pin."""
    with transaction.atomic():
        bot = Bot.objects.select_for_update().filter(pk=version.bot_id, active_version_id=version.pk,
                                                     retired__isnull=True).first()
        if bot is None:
            return
        if bot.pinned:
            bot.pinned = False
            bot.save(update_fields=["pinned"])
        refresh_active(bot=bot)


def finished(version: BotVersion, status: str) -> None:
    """Tell the apps above that the version's validation ended, once the recording transaction
    commits (a receiver's failure is logged and never undoes the result)."""
    transaction.on_commit(lambda: validation_finished.send(sender=BotVersion, version=version, status=status),
                          robust=True)


def platform_failure(lease: Lease, reason: str) -> str:
    """Give the version back for another attempt (PENDING: the task sends it again), or after the
    last attempt make it `error` (never the bot's fault)."""
    log.warning("validation of version %s failed (attempt %s): %s", lease.job_id, lease.attempt, reason)
    if lease.last_attempt:
        with transaction.atomic():
            if lease.give_up(f"platform failure after {lease.attempt} attempts: {reason}"):
                given_up(BotVersion.objects.get(pk=lease.job_id))
        return VersionStatus.ERROR
    if lease.give_back(f"retrying after a platform failure: {reason}"):
        return VersionStatus.PENDING
    return "superseded"
