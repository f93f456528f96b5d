"""The domain's errors: what a service raises when it refuses a request.

Every service function raises one of these with a message for the user (one line, no
internals); the API (`api/errors.py`) and the pages (`pages/errors.py`) each turn them into an
HTTP answer in one place, with the status from `HTTP_STATUS`. Nothing below those two layers
knows about HTTP except this table.
"""

from __future__ import annotations


class DomainError(Exception):
    """A refused request; `str(error)` is the message shown to the user."""


class Invalid(DomainError):
    """The input is wrong (a bad name, a bad archive, a missing field)."""


class TooLarge(Invalid):
    """The request body is larger than anything the site accepts."""


class NotFound(DomainError):
    """No such object, or one the user may not know exists (answered like a missing one)."""


class Forbidden(DomainError):
    """The object exists and the user may see it, but not do this to it (not their bot)."""


class Conflict(DomainError):
    """The request clashes with the object's state (a retired bot, a name taken, a limit of objects held)."""


class RateLimited(DomainError):
    """Too many of these in a window of time; try again later (after `retry_after_s` seconds when
    known: the API's `Retry-After`)."""

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Unavailable(DomainError):
    """A service the request needs (storage, the queue) is down; nothing was changed unless the
    message says what was kept (an upload saved while the queue is down). Try again later."""


#: The HTTP status of each error class (the most specific class that matches wins).
HTTP_STATUS: dict[type[DomainError], int] = {
    Invalid: 400,
    TooLarge: 413,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    RateLimited: 429,
    Unavailable: 503,
}


def http_status(error: DomainError) -> int:
    """The HTTP status for `error` (400 for an error class the table does not name)."""
    for cls in type(error).__mro__:
        if cls in HTTP_STATUS:
            return HTTP_STATUS[cls]  # type: ignore[index]
    return 400
