"""Account reads."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from armada_web.accounts.models import DEMO_GROUP, ApiToken


def tokens_of(user: User) -> QuerySet[ApiToken]:
    """The user's API tokens, newest first (never the secrets: they are not stored)."""
    return ApiToken.objects.filter(user=user).order_by("-created")


def signed_in(request: Any) -> User:
    """The user of a request that `login_required` let through."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionError("not signed in")
    return user


def demo_accounts() -> QuerySet[User]:
    """The accounts marked as demo ones (in the group `DEMO_GROUP`)."""
    return User.objects.filter(groups__name=DEMO_GROUP)


def name_taken(*, username: str) -> bool:
    """Whether an account is named `username` in any case. SQLite's iexact folds the ASCII letters
    alone (a live trial signed up "ЖУКОВ" beside "жуков"): a name that is not ASCII is compared by a
    case-insensitive regular expression too (Python's `re` on SQLite, Unicode-aware)."""
    same = Q(username__iexact=username)
    if not username.isascii():
        same |= Q(username__iregex=rf"^{re.escape(username)}$")
    return User.objects.filter(same).exists()
