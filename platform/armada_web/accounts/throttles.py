"""Brute-force protection for password checks, shared by the log-in page and the token API.

Failed attempts are counted per client address (`armada_web.web.clients`: X-Forwarded-For only from
the trusted proxies) and per username in atomic counters shared by every web process
(`armada_web.web.counters`, Redis). An attempt is counted *before* the password is checked and taken
back when it was right, so parallel attempts each get their own number: past either limit, every
attempt is refused with a message saying how long to wait, even with the right password, and N
parallel guesses can never check more than the limit's passwords. From a browser the account signed
in from before (accounts.devices) the username's failures are counted apart.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from armada_web.accounts import devices
from armada_web.accounts.limits import in_words
from armada_web.web import counters
from armada_web.web.clients import client_key
from armada_web.web.errors import RateLimited


@dataclass(frozen=True)
class Limit:
    """At most `count` failures per `window_s` seconds for one key."""

    scope: str
    count: int
    window_s: int


def limits() -> list[Limit]:
    config = settings.ARMADA
    window = config.login_failure_window_s
    return [Limit("ip", config.login_failures_per_ip, window), Limit("user", config.login_failures_per_user, window)]


def _names(request: Any, username: str, own: int | None = None, device: str | None = None) -> dict[str, str]:
    """The counters' names: the client's address, and a digest of the username (any text a form
    sends is a safe key), or for a signed-in user confirming their own password (`own`, their id)
    a counter of their own, which nobody else's failed log-ins fill (a security trial: ten wrong
    log-ins from anywhere stopped the account's owner changing their password). From a browser the
    account signed in from before (`device`, accounts.devices) the username's count is that
    browser's own: a stranger's failures elsewhere cannot lock the owner out of signing in."""
    user = (f"login-fail:own:{own}" if own is not None
            else f"login-fail:user:{folded(username[:150])}" + (f":device:{device}" if device else ""))
    return {"ip": f"login-fail:ip:{client_key(request)}", "user": user}


def folded(text: str) -> str:
    """A safe key for a username or an e-mail address, whatever its case and surrounding spaces."""
    return hashlib.sha256(text.strip().lower().encode("utf-8", "replace")).hexdigest()[:32]


class Attempt:
    """One password attempt, counted as a failure until `succeeded` takes it back."""

    def __init__(self, names: list[tuple[str, int]]) -> None:
        self._names = names

    def succeeded(self) -> None:
        for name, window_s in self._names:
            counters.undo(name, window_s)


@contextmanager
def attempt(request: Any, username: str, *, own: int | None = None) -> Iterator[Attempt]:
    """Count a password attempt of `username` from `request`'s client (`own`: the id of the signed-in
    user confirming their own password); RateLimited when it is past a limit (and then it is not
    counted). Call `succeeded()` on the result when the password was right."""
    device = devices.known(request=request, username=username[:150]) if own is None else None
    names = _names(request, username, own, device)
    counted: list[tuple[str, int]] = []
    refusal, wait_s = None, 0.0
    for limit in limits():
        name = names[limit.scope]
        counted.append((name, limit.window_s))
        if counters.hit(name, limit.window_s) > limit.count and refusal is None:
            who = ("from your address" if limit.scope == "ip" else "for this username" if own is None
                   else "with your password")
            wait_s = counters.seconds_left(limit.window_s)
            # attempts still being checked count too (a trial's parallel right passwords were told "failed")
            refusal = f"too many log-in attempts {who} (failed ones, or many at once); try again in {in_words(wait_s)}"
    if refusal:
        Attempt(counted).succeeded()  # a refused attempt checks no password: it does not count
        raise RateLimited(refusal, retry_after_s=wait_s)
    yield Attempt(counted)


def failures(request: Any, username: str) -> dict[str, float]:
    """The failures counted now against the client's address and the username (for tests and staff)."""
    names = _names(request, username)
    return {limit.scope: counters.peek(names[limit.scope], limit.window_s) for limit in limits()}


#: A destination address may be mailed this many times the per-client limit an hour from all clients.
ALL_CLIENTS = 4


def take_mail_request(request: Any, *, action: str, address: str, limit: int, refusal: str) -> None:
    """Count an anonymous request that mails `address` (a password reset): at most `limit` an hour from
    one client for one address, `ALL_CLIENTS` times that for the address from anyone, and as many from
    one client whatever the addresses; RateLimited past any (then nothing is counted). Counted in the
    shared counters (web.counters, expiring), not the database: an anonymous request writes nothing.
    Someone else's requests can use up the address's budget only from many clients at once."""
    digest = folded(address)
    client = client_key(request)
    window = 3600
    checks = [(f"{action}:to:{digest}:from:{client}", limit), (f"{action}:to:{digest}", ALL_CLIENTS * limit),
              (f"{action}:from:{client}", ALL_CLIENTS * limit)]
    over = [counters.hit(name, window) > count for name, count in checks]  # (each counted, then taken back)
    if any(over):
        Attempt([(name, window) for name, _count in checks]).succeeded()  # a refusal counts nothing
        wait_s = counters.seconds_left(window)
        raise RateLimited(f"{refusal}; try again in {in_words(wait_s)}", retry_after_s=wait_s)
