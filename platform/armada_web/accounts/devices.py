"""Browsers an account signed in from: a signed cookie (`armada-device`) set at each sign-in on the
log-in page names the account and a random id. An attempt to sign in as that account from a browser
holding it counts its failures on a count of its own (accounts.throttles), so a stranger failing
under the name from elsewhere cannot lock the owner out of the browser they use, while everyone
without the cookie shares the username's one count: spreading guesses over addresses still gains
nothing, and the count tells nothing of where the owner signs in (a review found both in a first
design that trusted the addresses an account had signed in from). The OWASP "device cookies" design.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.core import signing

COOKIE = "armada-device"
SALT = "armada.accounts.devices"
#: How long a browser stays known without signing in again.
MAX_AGE_S = 180 * 86400


def remember(*, response: Any, username: str) -> None:
    """Mark the browser `response` goes to as one `username` signed in from."""
    value = signing.dumps({"u": _folded(username), "n": secrets.token_urlsafe(12)}, salt=SALT, compress=True)
    response.set_cookie(COOKIE, value, max_age=MAX_AGE_S, secure=settings.SESSION_COOKIE_SECURE, httponly=True,
                        samesite="Lax")


def known(*, request: Any, username: str) -> str | None:
    """The id of the request's browser when it holds a valid cookie of `username`'s sign-in, else None."""
    value = getattr(request, "COOKIES", {}).get(COOKIE)
    if not value or len(value) > 400:
        return None
    try:
        data = signing.loads(value, salt=SALT, max_age=MAX_AGE_S)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("u") != _folded(username) or not isinstance(data.get("n"), str):
        return None
    return str(data["n"])


def _folded(username: str) -> str:
    """The name as the cookie holds it (signed, not secret: a username is public), whatever its case."""
    return username.strip().lower()[:150]
