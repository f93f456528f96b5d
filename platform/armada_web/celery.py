"""The Celery app: broker and settings from Django's settings (CELERY_* names).

Each worker process checks the sandbox (Docker engine, bot image) as it starts, and one started
with ARMADA_SANDBOX_WARM_PAIRS (`make up` sets it for the validation and match workers) makes
its warm sandbox slots as it starts and removes them as it stops. Every worker's consumer
watches its sandbox and stops taking games while it is down (armada_web.jobs.sandbox_watch). Logging
is the site's own (settings.LOGGING: text or JSON lines, each task's lines with its match or
version id: armada_web.runtime.logs), not Celery's.
"""

from __future__ import annotations

import logging
import logging.config
import os
from typing import Any

from celery import Celery
from celery.signals import setup_logging, task_postrun, task_prerun, worker_process_init, worker_process_shutdown
from django.conf import settings

from armada_sandbox import close_process_pool, process_pool
from armada_web.games.runner import PlatformFailure, check_sandbox
from armada_web.jobs.sandbox_watch import SandboxWatch
from armada_web.runtime import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")

app = Celery("armada_web")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.steps["consumer"].add(SandboxWatch)
log = logging.getLogger(__name__)


@setup_logging.connect
def _site_logging(**_: Any) -> None:
    """Celery leaves the logging to us once this signal has a receiver: the site's configuration."""
    logging.config.dictConfig(settings.LOGGING)
    logging.captureWarnings(True)  # (Celery's warnings too: one format for every line)


@task_prerun.connect
def _enter_task(task_id: str = "", task: Any = None, args: Any = None, **_: Any) -> None:
    logs.enter_task(getattr(task, "name", ""), task_id, args)


@task_postrun.connect
def _leave_task(**_: Any) -> None:
    logs.leave_task()


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
