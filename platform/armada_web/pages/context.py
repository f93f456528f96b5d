"""What every page's template gets: the SDK version, the viewer's scripts in load order and
whether the visitor is staff (`web.roles.is_staff`, the one test of staff)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

import armada
from armada.viewer import SCRIPTS
from armada_web.web.roles import is_staff


def site(request: HttpRequest) -> dict[str, Any]:
    return {"sdk_version": armada.__version__, "viewer_scripts": [f"armada/viewer/{name}" for name in SCRIPTS],
            "staff": is_staff(getattr(request, "user", None))}
