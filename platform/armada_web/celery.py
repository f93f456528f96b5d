"""The Celery app: broker and settings from Django's settings (CELERY_* names).

A worker process started with ARMADA_SANDBOX_WARM_PAIRS (`make up` sets it for the validation
and match workers) makes its warm sandbox slots as it starts and removes them as it stops.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")

app = Celery("armada_web")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _warm_slots(**_: Any) -> None:
    from armada_sandbox import process_pool

    process_pool()  # None (cold starts) without ARMADA_SANDBOX_WARM_PAIRS or free slots


@worker_process_shutdown.connect
def _cool_slots(**_: Any) -> None:
    from armada_sandbox import close_process_pool

    close_process_pool()
