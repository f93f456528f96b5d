"""Health checks of the services the site needs: database, Redis, Docker engine."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.db import connection

from armada_sandbox import check_ready


def check_database() -> str:
    """Run a trivial query; returns the engine vendor."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def check_redis() -> str:
    """PING the broker's Redis."""
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
        return f"redis {client.info('server').get('redis_version', '?')}"
    finally:
        client.close()


def check_docker() -> str:
    """The sandbox: the Docker engine answers and the bot image is there (the runner's own check)."""
    return check_ready(image=settings.ARMADA.bot_image)


CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "redis": check_redis,
    "docker": check_docker,
}


def run_checks(checks: dict[str, Callable[[], str]] | None = None) -> dict[str, Any]:
    """Run every check; never raises. Returns {"ok": bool, "checks": {name: {"ok", "detail", "ms"}}}."""
    results: dict[str, dict[str, Any]] = {}
    for name, check in (checks or CHECKS).items():
        started = time.monotonic()
        try:
            detail, ok = check(), True
        except Exception as exc:  # a health check reports every failure, whatever it is
            detail, ok = f"{exc.__class__.__name__}: {exc}", False
        results[name] = {"ok": ok, "detail": detail, "ms": round((time.monotonic() - started) * 1000, 1)}
    return {"ok": all(r["ok"] for r in results.values()), "checks": results}
