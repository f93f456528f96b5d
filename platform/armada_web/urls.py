"""URL routes of the site; the error handlers are the site's own (armada_web.pages.errors: pages, and
JSON under /api/)."""

from django.contrib import admin
from django.urls import include, path

from armada_web.ops.views import healthz, metrics
from armada_web.pages.account_views import profile

urlpatterns = [
    path("", include("armada_web.pages.urls")),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("accounts/profile/", profile, name="profile"),
    path("accounts/", include("armada_web.accounts.urls")),
    path("api/", include("armada_web.api.urls")),
    path("admin/", admin.site.urls),
]

handler400 = "armada_web.pages.errors.bad_request"
handler403 = "armada_web.pages.errors.permission_denied"
handler404 = "armada_web.pages.errors.page_not_found"
handler500 = "armada_web.pages.errors.server_error"
