"""The Armada site: Django project, Celery app and the site's apps."""

from .celery import app as celery_app

__all__ = ["celery_app"]
