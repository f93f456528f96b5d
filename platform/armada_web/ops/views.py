"""Operator endpoints."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .health import run_checks


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """JSON state of the database, Redis and Docker: 200 when all are fine, 503 naming what failed."""
    report = run_checks()
    failed = [name for name, check in report["checks"].items() if not check["ok"]]
    body = {"status": "ok" if report["ok"] else "fail", "failed": failed, "checks": report["checks"]}
    return JsonResponse(body, status=200 if report["ok"] else 503)
