"""The site's URLs plus two views that fail on purpose, for the error page tests."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from armada_web.urls import handler500
from armada_web.urls import urlpatterns as site


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("deliberate failure")


urlpatterns = [path("boom", boom), path("api/boom", boom), *site]
__all__ = ["handler500", "urlpatterns"]
