"""The site's address in links people follow from elsewhere: the e-mails (notifications, address
confirmations, password resets), written by a web process or by a worker with no request."""

from __future__ import annotations

from typing import Any

from django.conf import settings


def site_address(request: Any = None) -> str:
    """The scheme and host a mailed link starts with: ARMADA_SITE_URL when set (`make up` sets it,
    port included; an organiser behind a proxy sets the public one), else the host `request` came
    to (ALLOWED_HOSTS checked it), else the first of ALLOWED_HOSTS (https when HTTPS is on). A
    worker has no request: its e-mails once linked to http://127.0.0.1/... for a site on port 8399."""
    config = settings.ARMADA
    if config.site_url:
        return str(config.site_url).rstrip("/")
    if request is not None:
        return str(request.build_absolute_uri("/")).rstrip("/")
    hosts = [h for h in settings.ALLOWED_HOSTS if h not in ("*", "testserver")]
    scheme = "https" if config.https_only else "http"
    return f"{scheme}://{hosts[0]}" if hosts else ""
