"""/metrics: the deployment's figures in Prometheus' text format, and who may read them.

Everything is read at each scrape from the database (the source of truth, shared by every web
process and worker host) and from Redis, so the figures are the same whichever web process
answers and survive restarts:

- `armada_queue_depth{queue}`: messages waiting in each Celery queue of the registry (jobs.queues), Redis.
- `armada_matches_waiting{status}`: matches queued and running (the database's queue).
- `armada_matches_total{game,status}`: matches ended finished, void or failed.
- `armada_versions{status}`: bot versions by validation status (pending, validating, valid, ...).
- `armada_match_duration_seconds`, `armada_validation_duration_seconds`: histograms of the
  latest run of each finished match and of each validated version.
- `armada_workers_live{queue}`: Celery workers answering that consume each queue.
- `armada_host_workers_live{host}`: Celery workers answering on each worker host (the host part
  of their node names: the host's ARMADA_HOST_NAME).
- `armada_host_matches_last_hour{host,status}`: matches that ended in the last hour (finished,
  void, failed), by the worker host that played them (`Match.host`, recorded at the claim); a
  gauge over a sliding hour, so a host that stops playing drops to nothing.

`allowed(request)`: staff (signed in, or with an API token) and clients whose address is in
ARMADA_METRICS_ALLOW; a request that came through a proxy (it carries X-Forwarded-For or the
trusted ARMADA_PROXY_SSL_HEADER) is never allowed by address, since its address is the proxy's.
Everyone else gets a 404, as if there were no such page.
"""

from __future__ import annotations

import ipaddress
import logging
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, QuerySet, Sum
from django.http import HttpRequest
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from armada_web.accounts.tokens import NamedTokenAuthentication
from armada_web.bots.models import BotVersion, VersionStatus
from armada_web.jobs import broker, workers
from armada_web.matches.models import ENDED, IN_FLIGHT, Match, MatchStatus
from armada_web.web.clients import from_proxy
from armada_web.web.roles import is_staff

log = logging.getLogger(__name__)
#: Bucket bounds (seconds) of the two histograms.
MATCH_BUCKETS = (5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800)
VALIDATION_BUCKETS = (1, 2, 5, 10, 20, 30, 60, 120, 300)


def _staff_token(request: HttpRequest) -> bool:
    try:
        found = NamedTokenAuthentication().authenticate(Request(request))
    except AuthenticationFailed:
        return False
    return bool(found and is_staff(found[0]))


def _through_proxy(request: HttpRequest) -> bool:
    headers = ["HTTP_X_FORWARDED_FOR"]
    if settings.ARMADA.proxy_ssl_header:
        headers.append("HTTP_" + settings.ARMADA.proxy_ssl_header.upper().replace("-", "_"))
    return any(name in request.META for name in headers)


def address_allowed(address: str) -> bool:
    """Whether `address` is in ARMADA_METRICS_ALLOW."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(entry, strict=False) for entry in settings.ARMADA.metrics_allow)


def allowed(request: HttpRequest) -> bool:
    """Whether `request` may read /metrics: staff, or an allowed address not behind a proxy."""
    user = getattr(request, "user", None)
    if is_staff(user):
        return True
    if request.META.get("HTTP_AUTHORIZATION", "").startswith("Token ") and _staff_token(request):
        return True
    return not _through_proxy(request) and address_allowed(str(request.META.get("REMOTE_ADDR", "")))


def sees_details(request: HttpRequest) -> bool:
    """Whether `request` may read /healthz's details (each check's error text, which may name hosts,
    addresses and paths): whoever may read /metrics, and a client on this machine itself (a
    container's health check, `make up`) not behind a proxy."""
    if allowed(request):
        return True
    address = str(request.META.get("REMOTE_ADDR", ""))
    try:
        local = ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
    # A proxy on this machine named in ARMADA_TRUSTED_PROXIES forwards visitors from loopback,
    # with or without a header of its own.
    return local and not _through_proxy(request) and not from_proxy(request)


def _histogram(name: str, doc: str, rows: QuerySet[Any], bounds: tuple[int, ...]) -> HistogramMetricFamily:
    """A histogram of `finished - started` over `rows` (one query)."""
    duration = ExpressionWrapper(F("finished") - F("started"), output_field=DurationField())
    rows = rows.filter(started__isnull=False, finished__isnull=False).annotate(duration=duration)
    counts = {f"b{i}": Count("pk", filter=Q(duration__lte=timedelta(seconds=b))) for i, b in enumerate(bounds)}
    found = rows.aggregate(total=Count("pk"), summed=Sum("duration"), **counts)
    summed = found["summed"]
    total = summed.total_seconds() if isinstance(summed, timedelta) else float(summed or 0) / 1e6
    buckets = [(str(float(b)), found[f"b{i}"]) for i, b in enumerate(bounds)] + [("+Inf", found["total"])]
    return HistogramMetricFamily(name, doc, buckets=buckets, sum_value=total)


class Collector:
    """The figures above, read anew at each `collect()`."""

    def collect(self) -> Iterator[Metric]:
        yield from self._queues()
        waiting = GaugeMetricFamily("armada_matches_waiting", "Matches queued or running now", labels=["status"])
        ended = CounterMetricFamily("armada_matches", "Matches ended, by game and status (finished, void, failed)",
                                    labels=["game", "status"])
        by_status = {(row["game"], row["status"]): row["n"]
                     for row in Match.objects.order_by().values("game", "status").annotate(n=Count("pk"))}
        for status in IN_FLIGHT:
            waiting.add_metric([status], sum(n for (_, s), n in by_status.items() if s == status))
        for game in sorted({game for game, _ in by_status}):
            for status in ENDED:
                ended.add_metric([game, status], by_status.get((game, status), 0))
        yield waiting
        yield ended
        versions = GaugeMetricFamily("armada_versions", "Bot versions by validation status", labels=["status"])
        counts = dict(BotVersion.objects.order_by().values_list("status").annotate(n=Count("pk")))
        for value in VersionStatus.values:
            versions.add_metric([value], counts.get(value, 0))
        yield versions
        yield _histogram("armada_match_duration_seconds", "Seconds the latest run of each finished match took",
                         Match.objects.filter(status=MatchStatus.FINISHED), MATCH_BUCKETS)
        yield _histogram("armada_validation_duration_seconds", "Seconds each version's validation took",
                         BotVersion.objects.filter(status__in=[VersionStatus.VALID, VersionStatus.INVALID]),
                         VALIDATION_BUCKETS)
        yield self._hosts_last_hour()
        yield from self._workers()

    def _hosts_last_hour(self) -> Metric:
        played = GaugeMetricFamily("armada_host_matches_last_hour", "Matches that ended in the last hour, by the "
                                   "worker host that played them and status", labels=["host", "status"])
        since = timezone.now() - timedelta(hours=1)
        rows = (Match.objects.filter(status__in=ENDED, finished__gte=since).exclude(host="").order_by()
                .values_list("host", "status").annotate(n=Count("pk")))
        for host, status, n in sorted(rows):
            played.add_metric([host, status], n)
        return played

    def _queues(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily("armada_queue_depth", "Messages waiting in each Celery queue", labels=["queue"])
        for queue, n in broker.depths().items():
            if n is not None:  # Redis did not answer (logged): no figure rather than a wrong one
                depth.add_metric([queue], n)
        yield depth

    def _workers(self) -> Iterator[Metric]:
        live = GaugeMetricFamily("armada_workers_live", "Celery workers answering, per queue they consume",
                                 labels=["queue"])
        hosts = GaugeMetricFamily("armada_host_workers_live", "Celery workers answering, per worker host",
                                  labels=["host"])
        found = workers.live()
        if found is not None:  # the broker is down (logged): no figure rather than no page
            for queue, n in workers.per_queue(found).items():
                live.add_metric([queue], n)
            for host, n in sorted(Counter(w.host for w in found).items()):
                hosts.add_metric([host], n)
        yield live
        yield hosts
