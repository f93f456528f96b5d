"""Operator endpoints: /healthz (the role's checks; their details for operators only) and /metrics
(Prometheus, staff or allowed addresses)."""

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, CollectorRegistry, generate_latest

from .health import run_checks
from .metrics import Collector, allowed, sees_details


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """JSON state of the role's services (database, Redis, storage, Docker): 200 when all are
    fine, 503 naming what failed; each check's `detail` only for operators (`sees_details`)."""
    report = run_checks()
    failed = [name for name, check in report["checks"].items() if not check["ok"]]
    checks = report["checks"]
    if not sees_details(request):
        checks = {name: {**check, "detail": _public(check)} for name, check in checks.items()}
    body = {"status": "ok" if report["ok"] else "fail", "failed": failed, "checks": checks}
    return JsonResponse(body, status=200 if report["ok"] else 503)


def _public(check: dict[str, Any]) -> str:
    """A check's detail as anyone may read it: "ok", or the error's kind (its text is for operators)."""
    if check["ok"]:
        return "ok"
    kind = str(check["detail"]).split(":", 1)[0]
    return f"{kind} (the details are shown to operators only)"


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """The figures in Prometheus' text format; 404 for anyone who may not read them."""
    if not allowed(request):
        raise Http404("no such page")
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector())  # type: ignore[arg-type]
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_PLAIN_0_0_4)
