"""The Celery app: broker and settings from Django's settings (CELERY_* names)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")

app = Celery("armada_web")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
