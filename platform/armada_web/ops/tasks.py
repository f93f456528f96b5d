"""Service tasks: a round-trip probe for the worker, and the container sweeper."""

from __future__ import annotations

import os
import socket

from celery import shared_task
from django.conf import settings


@shared_task(name="armada_web.ops.tasks.echo")
def echo(payload: str) -> dict[str, object]:
    """Return the payload with where it ran: proves a worker took the task from the broker."""
    return {"payload": payload, "pid": os.getpid(), "host": socket.gethostname()}


@shared_task(name="armada_web.ops.tasks.write_marker")
def write_marker(name: str, text: str) -> str:
    """Write `text` to a file under the data folder: a side effect a test can observe."""
    safe = "".join(ch for ch in name if ch.isalnum() or ch in "-_") or "marker"
    path = settings.DATA_DIR / "markers" / f"{safe}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


@shared_task(name="armada_web.ops.tasks.sweep_containers")
def sweep_containers() -> int:
    """Remove bot containers left behind by dead workers (older than the longest match); returns how many."""
    from armada_sandbox import sweep

    return len(sweep(max_age_s=settings.MATCH_TIME_LIMIT_S + 300))
