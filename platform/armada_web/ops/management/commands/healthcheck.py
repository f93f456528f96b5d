"""`manage.py healthcheck [--checks a,b]`: /healthz's checks in this process; exit 1 when one fails.

The worker containers' health check (`armada-app health worker`) runs it beside `celery inspect
ping`, with the checks of their role (ARMADA_HEALTH_CHECKS: all four, the Docker engine included).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from armada_web.ops.health import CHECKS, role_checks, run_checks


class Command(BaseCommand):
    help = "Run the health checks of this process's role (ARMADA_HEALTH_CHECKS); exit 1 when one fails."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--checks", default="", help=f"comma-separated, of: {', '.join(CHECKS)}")

    def handle(self, *args: Any, checks: str, **options: Any) -> None:
        names = [name.strip() for name in checks.split(",") if name.strip()]
        unknown = [name for name in names if name not in CHECKS]
        if unknown:
            raise CommandError(f"unknown check {unknown[0]!r}; known: {', '.join(CHECKS)}")
        report = run_checks({name: CHECKS[name] for name in names} if names else role_checks())
        for name, check in report["checks"].items():
            self.stdout.write(f"{name}: {'ok' if check['ok'] else 'FAIL'} ({check['detail']}, {check['ms']} ms)")
        if not report["ok"]:
            raise CommandError("failed: " + ", ".join(n for n, c in report["checks"].items() if not c["ok"]))
