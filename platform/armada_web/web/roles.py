"""Who a user is to the platform: one test of staff for every app."""

from __future__ import annotations

from typing import Any


def is_staff(user: Any) -> bool:
    """A signed-in, active staff account (an organiser); anonymous users and None are not."""
    return bool(user is not None and getattr(user, "is_authenticated", False)
                and getattr(user, "is_active", False) and getattr(user, "is_staff", False))
