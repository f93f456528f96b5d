"""URL routes of the site."""

from django.contrib import admin
from django.urls import include, path

from armada_web.ops.views import healthz
from armada_web.pages.account_views import profile

urlpatterns = [
    path("", include("armada_web.pages.urls")),
    path("healthz", healthz, name="healthz"),
    path("accounts/profile/", profile, name="profile"),
    path("accounts/", include("armada_web.accounts.urls")),
    path("api/", include("armada_web.api.urls")),
    path("admin/", admin.site.urls),
]
