"""Browsers an account signed in from: a signed cookie (`armada-device`) set at each sign-in (the
log-in page, sign-up) names the account (its id, and a digest of its password then) and a random
id. An attempt to sign in as that account from a browser holding it counts its failures on a count
of its own (accounts.throttles), so a stranger failing under the name from elsewhere cannot lock
the owner out of the browser they use, while everyone without the cookie shares the username's one
count: spreading guesses over addresses still gains nothing, and the count tells nothing of where
the owner signs in (a review found both in a first design that trusted the addresses an account had
signed in from). The OWASP "device cookies" design. The API's token request (`armada login`) and
the admin's log-in page set none: a browser that signed in on the site's page makes a token there.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.utils.crypto import constant_time_compare, salted_hmac

COOKIE = "armada-device"
SALT = "armada.accounts.devices"
#: How long a browser stays known without signing in again.
MAX_AGE_S = 180 * 86400


def remember(*, response: Any, user: User) -> None:
    """Mark the browser `response` goes to as one `user` signed in from."""
    value = signing.dumps({"i": user.pk, "k": _password_mark(user), "n": secrets.token_urlsafe(12)}, salt=SALT)
    response.set_cookie(COOKIE, value, max_age=MAX_AGE_S, secure=settings.SESSION_COOKIE_SECURE, httponly=True,
                        samesite="Lax")


def known(*, request: Any, username: str) -> str | None:
    """The id of the request's browser when it holds a valid cookie of a sign-in of the account
    named `username` exactly (as the log-in reads it), with its password of then; else None. A
    cookie names the account by its id: another account's, one whose name differs only in case
    (a live trial: two such accounts gave each other budgets), one deleted since and one whose
    password has changed since count for nothing."""
    value = getattr(request, "COOKIES", {}).get(COOKIE)
    if not value or len(value) > 400:
        return None
    try:
        data = signing.loads(value, salt=SALT, max_age=MAX_AGE_S)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("i"), int) or not isinstance(data.get("n"), str):
        return None
    user = User.objects.filter(pk=data["i"]).first()
    if user is None or user.get_username() != username.strip() \
            or not constant_time_compare(_password_mark(user), str(data.get("k"))):
        return None
    return str(data["n"])


def _password_mark(user: User) -> str:
    """A digest of the account's password of now (its session hash, itself keyed by SECRET_KEY, keyed
    again: the cookie shows it)."""
    return salted_hmac(SALT, user.get_session_auth_hash()).hexdigest()[:20]
