"""What every page's template gets: the SDK version and the games."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

import armada


def site(request: HttpRequest) -> dict[str, Any]:
    return {"sdk_version": armada.__version__}
