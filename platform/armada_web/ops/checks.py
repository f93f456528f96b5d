"""The ops app's system checks (run by `manage.py migrate` and `check`)."""

from __future__ import annotations

import os
from typing import Any

from django.core import checks

from armada_web.runtime.unknown import unknown_variables


@checks.register(checks.Tags.compatibility)
def unknown_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """A warning per ARMADA_ variable of this process's environment that nothing reads (a typo?)."""
    return [checks.Warning(f"environment variable {name} is not one Armada reads: it has no effect",
                           hint=f"did you mean {near}?" if near else "see docs/deploy.md, \"Environment variables\"",
                           id="armada.W001")
            for name, near in unknown_variables(os.environ)]
