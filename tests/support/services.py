"""Checks for the real services some tests need (Docker, Redis, PostgreSQL, Chromium).

Locally a missing service skips the test with a clear reason; under CI (`CI=true`) it
fails instead, because CI must exercise the real thing.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(reason: str) -> None:
    """Skip locally, fail under CI."""
    if in_ci():
        pytest.fail(f"required service missing under CI: {reason}", pytrace=False)
    pytest.skip(reason)


@functools.cache
def docker_problem() -> str | None:
    """None when the Docker engine answers, else why not."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        client.ping()
    except Exception as exc:  # any failure means "not usable here"
        return f"Docker engine not reachable ({exc.__class__.__name__}: {exc}); run `make up` or start dockerd"
    return None


@functools.cache
def redis_problem() -> str | None:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, _, port = host_port.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port or 6379)), timeout=2):
            return None
    except OSError as exc:
        return f"Redis not reachable at {url} ({exc}); run `make services`"


def require_docker() -> None:
    problem = docker_problem()
    if problem:
        missing(problem)


def require_redis() -> None:
    problem = redis_problem()
    if problem:
        missing(problem)


def require_binary(name: str) -> str:
    path = shutil.which(name)
    if not path:
        missing(f"`{name}` is not installed")
    return path or ""


#: The role infra/postgres.sh makes (CREATEDB), used when DATABASE_URL names no PostgreSQL.
LOCAL_POSTGRES = "postgresql://armada:armada@127.0.0.1:5432/armada"


def postgres_url() -> str:
    """A PostgreSQL server URL whose role may create databases: DATABASE_URL's when it is one, else
    the local one infra/postgres.sh sets up (skips locally when none answers; fails under CI)."""
    url = os.environ.get("DATABASE_URL", "")
    url = url if url.startswith(("postgres://", "postgresql://")) else LOCAL_POSTGRES
    try:
        import psycopg

        psycopg.connect(url, connect_timeout=3).close()
    except Exception as exc:  # not installed, not running, refused
        missing(f"PostgreSQL not reachable at {url.split('@')[-1]} ({exc.__class__.__name__}); run infra/postgres.sh")
    return url


def fresh_postgres_database(name: str) -> str:
    """Create database `name` (dropped first if it exists) on postgres_url()'s server; its URL."""
    import psycopg

    base = postgres_url()
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return base.rsplit("/", 1)[0] + "/" + name


def drop_postgres_database(name: str) -> None:
    import psycopg

    with psycopg.connect(postgres_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
