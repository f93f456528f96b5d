"""URL routes of the site."""

from django.contrib import admin
from django.urls import path

from armada_web.ops.views import healthz
from armada_web.pages.views import home

urlpatterns = [
    path("", home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
