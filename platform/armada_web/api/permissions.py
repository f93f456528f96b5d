"""Who may see and change what: owners change their bots, owners and staff see private parts."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission


def can_see_private(user: Any, bot: Any) -> bool:
    """Owner or staff: may read the bot's sources and logs."""
    return bool(user and user.is_authenticated and (user.is_staff or bot.owner_id == user.pk))


class OwnerWritesBot(BasePermission):
    """Anyone reads a bot; only its owner changes it."""

    message = "not your bot"

    def has_object_permission(self, request: Any, view: Any, obj: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user.is_authenticated and obj.owner_id == request.user.pk)
