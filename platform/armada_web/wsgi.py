"""WSGI entry point: Django, each request's body read at a bounded pace (`web.inputs.paced`)."""

import os

from django.core.wsgi import get_wsgi_application

from armada_web.web.inputs import paced

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")
application = paced(get_wsgi_application())
