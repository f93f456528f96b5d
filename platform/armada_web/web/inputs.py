"""What a request brings, parsed one way for the whole site: ids, page numbers, usernames, text.

An id is a positive 63-bit integer (the database's bigint), written in ASCII digits: `int()`
alone would take `'٣'` or `' 7 '`, `str.isdigit` passes `'²'` (which `int` refuses), and a number
past 63 bits overflows the database driver. Every interface parses with these: the URL
converters `<id:...>` and `<username:...>` (registered when this module is imported, which
the URL modules do), the API's fields and filters (`api/fields.py`) and the pages' forms and
query strings. A value they refuse is `Invalid` (400) or, in a path, no match (404).
`DrainUnreadBody` reads what a refused request's body still holds, so its client reads the answer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, UnreadablePostError
from django.http.request import RawPostDataException
from django.http.response import HttpResponseBase
from django.urls import register_converter

from armada_web.web.errors import Invalid
from armada_web.web.logic.text import (
    has_bidi_control,
    has_control,
    has_invisible,
    hidden_selector_problem,
    stacked_marks_problem,
)

#: The largest id: PostgreSQL's bigint and SQLite's INTEGER are signed 64-bit.
MAX_ID = 2**63 - 1
#: ASCII digits (a bound on the length keeps `int` cheap; the range is checked after).
_DIGITS = re.compile(r"[0-9]{1,40}")
#: Django's usernames (UnicodeUsernameValidator), at most 150 characters.
USERNAME_PATTERN = r"[\w.@+-]{1,150}"


def parse_int(value: object, *, what: str, minimum: int = 0, maximum: int = MAX_ID) -> int:
    """`value` as an integer in [minimum, maximum]: an int (not a bool) or ASCII digits; Invalid otherwise."""
    if value is None:  # a required parameter left out: ask for it rather than judge its digits
        raise Invalid(f"give {what}: a whole number from {minimum} to {maximum}")
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _DIGITS.fullmatch(value):
        number = int(value)
    else:
        raise Invalid(f"{what} must be a whole number written in digits 0-9")
    if not minimum <= number <= maximum:
        raise Invalid(f"{what} must be between {minimum} and {maximum}")
    return number


def parse_flag(value: object, *, what: str) -> bool:
    """A yes-or-no query parameter: absent or empty (`?drawings=`, as the schema's `allowEmptyValue`
    says), "0" or "false" is False, "1" or "true" True; Invalid otherwise."""
    if value is None or value in ("", "0", "false"):
        return False
    if value in ("1", "true"):
        return True
    raise Invalid(f"{what} must be 1 or 0 (true or false)")


def parse_id(value: object, *, what: str = "id") -> int:
    """`value` as an id (1 .. 2**63 - 1); Invalid naming `what` otherwise."""
    try:
        return parse_int(value, what=what, minimum=1)
    except Invalid:
        raise Invalid(f"give the {what} as a whole number from 1 to {MAX_ID}") from None


def storable(text: str) -> bool:
    """Whether the database can hold `text`: no NUL (PostgreSQL refuses it in text) and no lone
    surrogate (a JSON escape such as `\\ud800`: not UTF-8, which the driver and the JSON renderer
    need). A form's or a query string's text has neither surrogates (Django decodes it with
    replacement) nor, through Django's form fields, NUL; a JSON body may hold both."""
    return "\x00" not in text and not any("\ud800" <= c <= "\udfff" for c in text)


def made_storable(text: str) -> str:
    """`text` as the database can hold it (`storable`): each NUL and lone surrogate shown as U+FFFD.
    For text no one typed into a form, a bot's log say, kept as it came otherwise."""
    if storable(text):
        return text
    return "".join("\ufffd" if c == "\x00" or "\ud800" <= c <= "\udfff" else c for c in text)


def printable(text: str) -> str:
    """`text` with each lone surrogate written as its escape (`\\ud800`), so a message that repeats
    what a request sent can be encoded as UTF-8 (a JSON answer, a page)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def parse_text(value: object, *, what: str, max_length: int) -> str:
    """A short text parameter (a search): at most `max_length` characters, no NUL or other control
    character (the database refuses NUL); Invalid otherwise."""
    text = value if isinstance(value, str) else ""
    if has_control(text):
        raise Invalid(f"{what} holds a control character")
    return text.strip()[:max_length]


def shown_text_problem(text: str, *, what: str) -> str | None:
    """Why `text`, shown on pages as it is (an event's name, a staff note or reason), cannot be
    kept, or None: a NUL or a lone surrogate (the database cannot hold them), a control character
    (an escape acts on a terminal), a text direction mark or override (BIDI_CONTROLS). `what`
    names it in the message ("an event's name")."""
    if not storable(text):
        return f"{what} may not hold a NUL character or a lone surrogate"
    if has_control(text):
        return f"{what} may not hold control characters (such as an escape)"
    if has_bidi_control(text):
        return (f"{what} may not hold text direction marks or overrides (U+200E, U+202E and the like): "
                "they turn the text around it on the pages that show it")
    return None


def shown_name_problem(text: str, *, what: str) -> str | None:
    """`shown_text_problem` for a name a list shows on one line among others (an event's, a season's):
    also no stack of accent marks (`stacked_marks_problem`, D-S-31), which spills over the rows
    around it, and no invisible character (a zero-width space, a joiner), with which two names look
    alike (an organiser's trial: two open events of one owner "zero<U+200B>width" and "zerowidth").
    Free text (a description, a staff note) keeps its marks."""
    problem = shown_text_problem(text, what=what) or stacked_marks_problem(text, what=what)
    if problem is None and has_invisible(text):
        problem = (f"{what} may not hold invisible characters (zero-width spaces, joiners, format marks): "
                   "a page would show it like another name")
    return problem or hidden_selector_problem(text, what=what, other="another name")


class IdConverter:
    """`<id:name>` in a URL: an id (ASCII digits, 1 .. 2**63 - 1); anything else does not match (404)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 1 <= number <= MAX_ID:
            raise ValueError(f"not an id: {value}")
        return number

    def to_url(self, value: int | str) -> str:
        return str(parse_id(value))


class UsernameConverter:
    """`<username:name>` in a URL: what Django accepts as a username (no NUL, no slash)."""

    regex = USERNAME_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(IdConverter, "id")
register_converter(UsernameConverter, "username")


#: Seconds a refused request's unread body is read for at the most: a client that declares a body
#: and sends it slowly, or not at all, holds a web thread no longer than this.
DRAIN_S = 10.0


class DrainUnreadBody:
    """Middleware (the outermost): read what a request's body still holds before its answer goes
    out, up to `drain_limit()` bytes and DRAIN_S seconds.

    A view that answers before reading the body (401, 404, or 413 for an upload far over the
    limit) leaves it unread; gunicorn then closes the connection with unread bytes, the kernel
    answers them with a reset, and a client still sending sees "connection reset" or "broken
    pipe" instead of the answer. A body larger than the bound, one not read within DRAIN_S, or
    one whose answer is marked `unread` (`pages.errors.BodyLimit`'s to a form's address, a body
    that did not arrive in time) is not read on: gunicorn closes every connection after its
    answer (`keepalive = 0`, infra/gunicorn.conf.py), so its unread bytes go with it. (Not a
    `Connection: close` header: gunicorn drops hop-by-hop headers, and wsgiref, under
    `runserver` and the live tests' servers, refuses them with a 500.)
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        length = declared_length(request)
        if length > 0 and not unread(response) and length <= drain_limit():
            _drain(request)
        return response


def leave_unread(response: HttpResponseBase) -> HttpResponseBase:
    """Mark an answer whose request's body is not to be read on (`DrainUnreadBody`)."""
    response.armada_unread = True  # type: ignore[attr-defined]
    return response


def unread(response: HttpResponseBase) -> bool:
    return bool(getattr(response, "armada_unread", False))


def _drain(request: HttpRequest) -> None:
    """Read what the body still holds, within DRAIN_S (`PacedInput` times the reads out on the web
    server); a client gone or too slow leaves the rest unread (the connection closes after the answer)."""
    stream = request.META.get("wsgi.input")
    if isinstance(stream, PacedInput):
        stream.hurry(DRAIN_S)
    try:
        while request.read(64 * 1024):
            pass
    except (RawPostDataException, OSError, UnreadablePostError):  # read as a whole already, or the client went
        pass


#: A request's body must arrive within BODY_GRACE_S plus its length at BODY_PACE bytes a second:
#: a client that declares a body and sends it slowly, or not at all, holds a web thread no longer
#: (gunicorn reads a body as it comes, and nothing in front of it buffers one).
BODY_GRACE_S = 30.0
BODY_PACE = 64 * 1024


class PacedInput:
    """`wsgi.input` on gunicorn with a deadline for the whole body: each read waits on the client's
    socket only until then, and one past it raises TimeoutError (Django: UnreadablePostError) and
    marks the input `expired`, which `pages.errors.BodyLimit` answers with 408 whoever caught the
    error (the CSRF check reads a form's body and takes a failed read for a missing token)."""

    def __init__(self, stream: Any, sock: Any, length: int) -> None:
        self.stream, self.sock = stream, sock
        self.deadline = time.monotonic() + BODY_GRACE_S + length / BODY_PACE
        self.expired = False

    def hurry(self, seconds: float) -> None:
        """Bring the deadline to `seconds` from now at the latest."""
        self.deadline = min(self.deadline, time.monotonic() + seconds)

    def _through(self, read: Callable[[int | None], bytes], size: int | None) -> bytes:
        """`read(size)` within the deadline; a read that times out marks the input `expired`."""
        left = self.deadline - time.monotonic()
        if left > 0:
            self.sock.settimeout(left)
            try:
                return read(size)
            except TimeoutError:
                pass
        self.expired = True
        raise TimeoutError("the request's body did not arrive in time")

    def read(self, size: int | None = -1) -> bytes:
        return self._through(self.stream.read, size)

    def readline(self, size: int | None = -1) -> bytes:
        return self._through(self.stream.readline, size)

    def __iter__(self) -> Any:
        while line := self.readline():
            yield line


def body_expired(request: HttpRequest) -> bool:
    """Whether the request's body did not arrive in time (`PacedInput`)."""
    return bool(getattr(request.META.get("wsgi.input"), "expired", False))


def paced(app: Callable[..., Any]) -> Callable[..., Any]:
    """WSGI middleware: a request with a body reads it through `PacedInput` (on gunicorn, whose
    environ holds the client's socket); the socket waits as before once the application returns."""
    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        sock = environ.get("gunicorn.socket")
        try:
            length = max(0, int(environ.get("CONTENT_LENGTH") or 0))
        except ValueError:
            length = 0
        if sock is None or not length:
            return app(environ, start_response)
        before = sock.gettimeout()
        environ["wsgi.input"] = PacedInput(environ["wsgi.input"], sock, length)
        try:
            return app(environ, start_response)
        finally:
            sock.settimeout(before)
    return application


def declared_length(request: HttpRequest) -> int:
    """The body's length as the client declares it (Django reads no more; 0 when none is declared)."""
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


#: Room for a multipart form's envelope and fields around what it carries.
ENVELOPE_BYTES = 64 * 1024


def takes_upload(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a view function that takes a bot's upload (`body_limit`); a DRF action says so with
    `@action(..., takes_upload=True)` (its view set has the attribute `takes_upload = False`)."""
    view.takes_upload = True  # type: ignore[attr-defined]
    return view


def upload_view(view: Callable[..., Any]) -> bool:
    """Whether a view takes a bot's upload (`takes_upload`)."""
    return bool(getattr(view, "takes_upload", False) or getattr(view, "initkwargs", {}).get("takes_upload", False))


def body_limit(view: Callable[..., Any], *, signed_in: bool) -> int:
    """The largest body a request to `view` may declare: an upload's (the largest game's, each view
    checks its own game's) for a view that takes uploads, when the client may upload (signed in,
    or an API client: the API authenticates before it reads a body); else a form's or JSON's
    (DATA_UPLOAD_MAX_MEMORY_SIZE, what Django keeps of a form's fields in memory)."""
    if upload_view(view) and signed_in:
        return settings.ARMADA.upload_limit()[0] + ENVELOPE_BYTES
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE) + ENVELOPE_BYTES


def drain_limit() -> int:
    """The largest body `DrainUnreadBody` reads to the end: four times an upload's largest request."""
    return 4 * (settings.ARMADA.upload_limit()[0] + ENVELOPE_BYTES)
