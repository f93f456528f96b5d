"""Account writes: password checks with brute-force limits, API tokens, deleting an account."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.db import transaction

from armada_web.accounts import throttles
from armada_web.accounts.models import ApiToken

TOKEN_NAME_MAX = 64


class AccountError(Exception):
    """A request that cannot be done; the message is for the user. `status` is the HTTP code."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def check_password(request: Any, username: str, password: str) -> User:
    """The user with these credentials, counting failures; AccountError (400, or 429 past the limits)."""
    refusal = throttles.login_refusal(request, username)
    if refusal:
        raise AccountError(refusal, status=429)
    user = authenticate(request, username=username, password=password)
    if user is None:
        throttles.record_failure(request, username)
        raise AccountError("wrong username or password (or the account is disabled)")
    return user  # type: ignore[return-value]


def clean_token_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise AccountError("a token needs a name (what you will call it, e.g. 'laptop')")
    name = " ".join(name.split())
    if len(name) > TOKEN_NAME_MAX:
        raise AccountError(f"token name too long: {len(name)} characters (at most {TOKEN_NAME_MAX})")
    return name


def create_token(user: User, name: Any) -> tuple[ApiToken, str]:
    """A new token for `user`; returns the row and the secret (shown once, never stored)."""
    clean = clean_token_name(name)
    token, secret = ApiToken.objects.create(user=user, expiry=None, name=clean)
    return token, secret


def revoke_token(user: User, token_id: int) -> None:
    """Delete one of the user's tokens; AccountError 404 when it is not theirs."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise AccountError("no such token", status=404)


@transaction.atomic
def delete_account(user: User) -> None:
    """Delete a user: their bots retire (matches keep them), their sources and logs go.

    The forgetting happens in a pre_delete receiver (armada_web.bots.signals), so deleting a
    user from the admin or a shell does the same.
    """
    user.delete()
