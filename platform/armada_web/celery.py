"""The Celery app: broker and settings from Django's settings (CELERY_* names).

Each worker process checks the sandbox (Docker engine, bot image) as it starts, and one started
with ARMADA_SANDBOX_WARM_PAIRS (`make up` sets it for the validation and match workers) makes
its warm sandbox slots as it starts and removes them as it stops.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown

from armada_sandbox import close_process_pool, process_pool
from armada_web.games.runner import PlatformFailure, check_sandbox

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")

app = Celery("armada_web")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
log = logging.getLogger(__name__)


@worker_process_init.connect
def _prepare_worker(**_: Any) -> None:
    process_pool()  # None (cold starts) without ARMADA_SANDBOX_WARM_PAIRS or free slots
    try:
        log.info("sandbox ready: %s", check_sandbox())
    except PlatformFailure as exc:  # checked again before the next game
        log.warning("%s", exc)


@worker_process_shutdown.connect
def _cool_slots(**_: Any) -> None:
    close_process_pool()
