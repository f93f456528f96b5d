"""Probe tasks for tests/live/test_celery.py, loaded into a test's worker with `celery worker -I`."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from celery import shared_task
from django.conf import settings


@shared_task(name="tests.support.celery_probes.echo")
def echo(payload: str) -> dict[str, object]:
    """Return the payload with where it ran: proves a worker took the task from the broker."""
    return {"payload": payload, "pid": os.getpid(), "host": socket.gethostname()}


@shared_task(name="tests.support.celery_probes.write_marker")
def write_marker(name: str, text: str) -> str:
    """Write `text` to a file under the data folder: a side effect a test can observe."""
    safe = "".join(ch for ch in name if ch.isalnum() or ch in "-_") or "marker"
    path = Path(settings.DATA_DIR) / "markers" / f"{safe}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)
