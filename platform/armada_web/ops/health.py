"""Health checks of the services the site needs: database, Redis, storage, the Docker engine.

Which of them a process runs is its role's (ARMADA_HEALTH_CHECKS): the web container has no
Docker socket, the workers own the sandbox, so compose gives the web container
`database,redis,storage` and the workers all four (`manage.py healthcheck`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.db import connection

from armada_sandbox import check_ready
from armada_web.storage import objectstore


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


def check_storage() -> str:
    """The private storage takes, gives back and deletes a small object (a full disk, a missing
    bucket or an unreachable endpoint fail here)."""
    return objectstore.check()


#: Every check, by the names ARMADA_HEALTH_CHECKS uses (config.HEALTH_CHECKS).
CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "redis": check_redis,
    "storage": check_storage,
    "docker": check_docker,
}


def role_checks() -> dict[str, Callable[[], str]]:
    """The checks this process's role runs (ARMADA_HEALTH_CHECKS)."""
    return {name: CHECKS[name] for name in settings.ARMADA.health_checks}


def run_checks(checks: dict[str, Callable[[], str]] | None = None) -> dict[str, Any]:
    """Run the role's checks (or `checks`); never raises. Returns {"ok": bool, "checks": {name:
    {"ok", "detail", "ms"}}}."""
    results: dict[str, dict[str, Any]] = {}
    for name, check in (role_checks() if checks is None else checks).items():
        started = time.monotonic()
        try:
            detail, ok = check(), True
        except Exception as exc:  # a health check reports every failure, whatever it is
            detail, ok = f"{exc.__class__.__name__}: {exc}", False
        results[name] = {"ok": ok, "detail": detail, "ms": round((time.monotonic() - started) * 1000, 1)}
    return {"ok": all(r["ok"] for r in results.values()), "checks": results}
