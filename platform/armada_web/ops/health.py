"""Health checks of the services the site needs: database, Redis, Docker engine."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection


def check_database() -> str:
    """Run a trivial query; returns the engine vendor."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def check_redis() -> str:
    """PING the broker's Redis."""
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
        return f"redis {client.info('server').get('redis_version', '?')}"
    finally:
        client.close()


def check_docker() -> str:
    """Ping the Docker engine and report whether the bot image is present."""
    import docker

    client = docker.from_env(timeout=3)
    try:
        client.ping()
        version = client.version().get("Version", "?")
        try:
            client.images.get(settings.DOCKER_BOT_IMAGE)
            image = "bot image present"
        except docker.errors.ImageNotFound:
            image = f"bot image {settings.DOCKER_BOT_IMAGE} missing (run `make bot-image`)"
        return f"docker {version}, {image}"
    finally:
        client.close()


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
