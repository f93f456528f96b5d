"""Who may see an event: anyone when it is public, else its members (its owner and those who
entered a bot) and staff. Everyone else is answered as if it did not exist."""

from __future__ import annotations

from typing import Any

from armada_web.events.models import Event


def is_member(*, user: Any, event: Event) -> bool:
    """Its owner, or someone who entered a bot."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(event.owner_id == user.pk or event.entries.filter(owner=user).exists())


def can_see(*, user: Any, event: Event) -> bool:
    return bool(event.public or is_member(user=user, event=event) or getattr(user, "is_staff", False))


def is_owner(*, user: Any, event: Event) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False) and event.owner_id == user.pk)
