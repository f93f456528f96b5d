"""The site's Celery queues and task names, declared once.

Every queue has a role (what it carries) and a name, read from its setting (`ARMADA_<ROLE>_QUEUE`,
a field of `runtime.config.Config`); everything that needs a queue asks this module: the tasks'
senders (`match_queue`, `name`), the settings (`routes`, `default_queue`), the broker's depths and
the live workers (`jobs.broker`, `jobs.workers`), the matchmaker's capacity, the status page,
`/metrics` and the workers' sandbox watch (`game_queues`). A task's name is the constant below
and nothing else: a message a queue still holds names its task by it, so a name stays as it is
when its module moves (tests/jobs/test_registry.py fails on a queue or task name written
anywhere else).

The settings module reads it too, passing its own config (Django's settings are read only by a
call without one).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.conf import settings


class Role(StrEnum):
    """What a queue carries."""

    VALIDATION = "validation"
    FINALS = "finals"
    CHALLENGES = "challenges"
    EVENTS = "events"
    MATCHES = "matches"
    PERIODIC = "periodic"


@dataclass(frozen=True)
class Queue:
    role: Role
    #: The `Config` field (and so the environment variable ARMADA_<ROLE>_QUEUE) that names it.
    setting: str
    #: Its tasks play games in the sandbox (a worker without a sandbox stops taking them).
    plays_games: bool
    doc: str


#: Every queue, in the order the status page and /metrics list them.
QUEUES: tuple[Queue, ...] = (
    Queue(Role.VALIDATION, "validation_queue", True, "validations of uploaded versions"),
    Queue(Role.FINALS, "finals_queue", True, "a season's finals matches (taken before every other queue)"),
    Queue(Role.CHALLENGES, "challenges_queue", True, "challenges"),
    Queue(Role.EVENTS, "events_queue", True, "private events' matches"),
    Queue(Role.MATCHES, "matches_queue", True, "ranked matches"),
    Queue(Role.PERIODIC, "periodic_queue", False, "the periodic jobs Celery beat sends"),
)
#: The queues match workers serve (`celery worker -Q` of a match worker), in the order they take them.
MATCH_ROLES = (Role.FINALS, Role.CHALLENGES, Role.EVENTS, Role.MATCHES)

#: The kinds of Celery worker a host runs, and the queues each serves (`manage.py queues --worker KIND`
#: prints them for `celery worker -Q`; make up and the app image's `worker KIND` ask it).
WORKERS: dict[str, tuple[Role, ...]] = {
    "validation": (Role.VALIDATION,),
    "matches": MATCH_ROLES,
    "periodic": (Role.PERIODIC,),
}

#: kombu's Redis transport keeps a queue's messages of priority 0 in the list named like the
#: queue, and those of priority p in `NAME + PRIORITY_SEP + p` for each of its default steps.
PRIORITY_SEP = "\x06\x16"
PRIORITY_STEPS = (3, 6, 9)
#: The Redis hash of the messages workers took and have not acknowledged.
UNACKED = "unacked"
#: The sorted set of when each of them was taken (kombu's Redis transport: delivery tag -> epoch seconds).
UNACKED_INDEX = "unacked_index"


class Task(StrEnum):
    """Every Celery task's name (the wire name: kept when the function moves)."""

    VALIDATE_VERSION = "armada_web.bots.tasks.validate_version"
    REAP_VALIDATIONS = "armada_web.bots.tasks.reap_validations"
    RUN_MATCH = "armada_web.matches.tasks.run_match"
    REAP_MATCHES = "armada_web.matches.tasks.reap_matches"
    MATCHMAKING = "armada_web.ladder.tasks.matchmaking"
    SYNC_LEAGUE = "armada_web.ladder.tasks.sync_league_task"
    REPAIR_PLAYING = "armada_web.ladder.tasks.repair_standing_task"
    SEASONS_TICK = "armada_web.seasons.tasks.seasons_tick"
    EVENTS_TICK = "armada_web.events.tasks.events_tick"
    SWEEP_CONTAINERS = "armada_web.ops.tasks.sweep_containers"
    INTEGRITY_CHECKS = "armada_web.integrity.tasks.integrity_checks"
    INTEGRITY_CATCH_UP = "armada_web.integrity.tasks.integrity_catch_up"
    PROBE_VERSION = "armada_web.integrity.tasks.probe_version"
    SEND_MAIL = "armada_web.accounts.tasks.send_pending_mail"


#: The queue of each task sent to a queue of its own (the others go to the periodic queue).
TASK_ROLES = {Task.VALIDATE_VERSION: Role.VALIDATION, Task.RUN_MATCH: Role.MATCHES,
              Task.PROBE_VERSION: Role.VALIDATION}


def _config(config: Any) -> Any:
    return settings.ARMADA if config is None else config


def queue(role: Role) -> Queue:
    return next(q for q in QUEUES if q.role is role)


def name(role: Role, config: Any = None) -> str:
    """The name of the queue of `role` (from its setting)."""
    return str(getattr(_config(config), queue(role).setting))


def names(config: Any = None) -> dict[Role, str]:
    """Every queue's name by role, in QUEUES' order."""
    return {q.role: name(q.role, config) for q in QUEUES}


def match_queues(config: Any = None) -> tuple[str, ...]:
    """The queues of matches (what a match worker serves)."""
    return tuple(name(role, config) for role in MATCH_ROLES)


def worker_queues(kind: str, config: Any = None) -> tuple[str, ...]:
    """The queues a worker of `kind` (a key of WORKERS) serves, in the order it takes them."""
    return tuple(name(role, config) for role in WORKERS[kind])


def game_queues(config: Any = None) -> set[str]:
    """The queues whose tasks play games in the sandbox."""
    return {name(q.role, config) for q in QUEUES if q.plays_games}


def routes(config: Any = None) -> dict[str, dict[str, str]]:
    """Celery's `task_routes`: the tasks with a queue of their own."""
    return {task.value: {"queue": name(role, config)} for task, role in TASK_ROLES.items()}


def default_queue(config: Any = None) -> str:
    """Celery's default queue: the periodic jobs'."""
    return name(Role.PERIODIC, config)


def redis_keys(queue_name: str) -> list[str]:
    """The Redis lists that hold `queue_name`'s waiting messages (every priority step)."""
    return [queue_name, *(f"{queue_name}{PRIORITY_SEP}{step}" for step in PRIORITY_STEPS)]


def by_name(queue_names: Iterable[str], config: Any = None) -> dict[str, Role]:
    """The roles of the queues named (names no role has are left out)."""
    known = {value: role for role, value in names(config).items()}
    return {n: known[n] for n in queue_names if n in known}
