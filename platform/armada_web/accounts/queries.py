"""Account reads."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from armada_web.accounts.models import ApiToken


def tokens_of(user: User) -> QuerySet[ApiToken]:
    """The user's API tokens, newest first (never the secrets: they are not stored)."""
    return ApiToken.objects.filter(user=user).order_by("-created")
