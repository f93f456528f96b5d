"""URL routes of the site; the error handlers are the site's own (armada_web.pages.errors: pages, and
JSON under /api/)."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from armada_web.ops.views import healthz, metrics
from armada_web.pages.account_views import profile

urlpatterns = [
    path("", include("armada_web.pages.urls")),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("accounts/profile/", profile, name="profile"),
    path("accounts/", include("armada_web.accounts.urls")),
    path("api/", include("armada_web.api.urls")),
    # the admin's own password change checks the old password uncounted: staff change theirs on the
    # site's page, which counts it as a log-in attempt (accounts.services.confirm_password)
    path("admin/password_change/", RedirectView.as_view(pattern_name="password-change"), name="admin-password-change"),
    path("admin/", admin.site.urls),
]

handler400 = "armada_web.pages.errors.bad_request"
handler403 = "armada_web.pages.errors.permission_denied"
handler404 = "armada_web.pages.errors.page_not_found"
handler500 = "armada_web.pages.errors.server_error"
