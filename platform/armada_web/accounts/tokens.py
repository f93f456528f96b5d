"""Token authentication for the API: knox's hashed tokens, plus the `last_used` time of each and
where it was used from (accounts.sightings, at most once an hour per address).

A token is ASCII (hex); an Authorization header holding other bytes (Latin-1 letters, 0xff) or a
control character (NUL: PostgreSQL refuses it in the lookup) is a wrong token, answered 401 like
any other, never a decoding or database error.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from knox.auth import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from armada_web.accounts import sightings
from armada_web.web.logic.text import has_control

#: `last_used` is written at most this often per token (saves a write per request).
LAST_USED_RESOLUTION = timedelta(minutes=1)


class NamedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <secret>`; records when each token was last used, and from where."""

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        found = super().authenticate(request)
        if found is not None:
            sightings.record_token_use(token=found[1], request=request)
        return found

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        if not token.isascii() or has_control(token.decode("ascii")):
            raise AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(token)

    def validate_user(self, auth_token: Any) -> tuple[Any, Any]:
        user, token = super().validate_user(auth_token)
        now = timezone.now()
        if token.last_used is None or now - token.last_used >= LAST_USED_RESOLUTION:
            type(token).objects.filter(pk=token.pk).update(last_used=now)
            token.last_used = now
        return user, token
