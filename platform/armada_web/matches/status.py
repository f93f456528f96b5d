"""The arena's state for `/status/` and `GET /api/status/`: the depth of every queue (Redis), the
matches that ended in the last hour by kind and status and by the worker host that played them
(`Match.host`: its ARMADA_HOST_NAME), the median wait from queued to started, the live workers and
their hosts (Celery inspect: the host part of each node name); for staff, the reasons (and hosts)
of recent void and failed matches. The public part is cached for a few seconds; the workers are
the matchmaker's latest answer (asking them takes 1 s: jobs.workers.recent)."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from armada_web.jobs import broker, workers
from armada_web.matches.models import ENDED_BADLY, Match, MatchStatus

CACHE_KEY = "armada:status"
CACHE_S = 5
PROBLEMS = 20


def _workers() -> list[dict[str, Any]]:
    """The workers that answered lately (jobs.workers.recent) as the status shows them."""
    return [{"name": w.name, "host": w.host, "queues": list(w.queues)} for w in workers.recent() or []]


@dataclass
class Status:
    queues: dict[str, int | None]
    finished_last_hour: dict[str, int]
    ended_last_hour: dict[str, dict[str, int]]
    median_wait_s: float | None
    workers: list[dict[str, Any]]
    problems: list[dict[str, Any]] = field(default_factory=list)
    #: Matches that ended in the last hour per worker host and status (a claimed match's host).
    hosts_last_hour: dict[str, dict[str, int]] = field(default_factory=dict)


def _public() -> Status:
    since = timezone.now() - timedelta(hours=1)
    ended: dict[str, dict[str, int]] = {}
    hosts: dict[str, dict[str, int]] = {}
    rows = Match.objects.filter(finished__gte=since).values_list("kind", "status", "host")
    for kind, status, host in rows:
        ended.setdefault(kind, {}).setdefault(status, 0)
        ended[kind][status] += 1
        if host:  # voided before any worker claimed it: played by no host
            hosts.setdefault(host, {}).setdefault(status, 0)
            hosts[host][status] += 1
    finished = {kind: counts.get(MatchStatus.FINISHED, 0) for kind, counts in ended.items()}
    waits = [(started - queued).total_seconds() for queued, started in Match.objects.filter(
        started__gte=since, queued__isnull=False).values_list("queued", "started")[:5000]
        if queued is not None and started is not None and started >= queued]
    return Status(queues=broker.depths(), finished_last_hour=finished, ended_last_hour=ended,
                  median_wait_s=round(statistics.median(waits), 1) if waits else None, workers=_workers(),
                  hosts_last_hour=dict(sorted(hosts.items())))


def problems(limit: int = PROBLEMS) -> list[dict[str, Any]]:
    """Staff: the latest void and failed matches and why."""
    return [{"match": pk, "kind": kind, "status": status, "reason": reason, "finished": finished, "host": host}
            for pk, kind, status, reason, finished, host in Match.objects.filter(
                status__in=ENDED_BADLY).order_by("-finished", "-id")
            .values_list("pk", "kind", "status", "reason", "finished", "host")[:limit]]


def status(*, staff: bool = False) -> Status:
    """The arena's state now (the public part at most CACHE_S seconds old); `staff` adds the problems."""
    cached = cache.get(CACHE_KEY)
    found = Status(**cached) if isinstance(cached, dict) else None
    if found is None:
        found = _public()
        cache.set(CACHE_KEY, asdict(found), CACHE_S)
    if staff:
        found.problems = problems()
    return found
