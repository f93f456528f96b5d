"""What every page's template gets: the SDK version and the viewer's scripts in load order."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

import armada
from armada.viewer import SCRIPTS


def site(request: HttpRequest) -> dict[str, Any]:
    return {"sdk_version": armada.__version__, "viewer_scripts": [f"armada/viewer/{name}" for name in SCRIPTS]}
