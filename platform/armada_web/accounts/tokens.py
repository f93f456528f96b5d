"""Token authentication for the API: knox's hashed tokens, plus the `last_used` time of each."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from knox.auth import TokenAuthentication

#: `last_used` is written at most this often per token (saves a write per request).
LAST_USED_RESOLUTION = timedelta(minutes=1)


class NamedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <secret>`; records when each token was last used."""

    def validate_user(self, auth_token: Any) -> tuple[Any, Any]:
        user, token = super().validate_user(auth_token)
        now = timezone.now()
        if token.last_used is None or now - token.last_used >= LAST_USED_RESOLUTION:
            type(token).objects.filter(pk=token.pk).update(last_used=now)
            token.last_used = now
        return user, token
