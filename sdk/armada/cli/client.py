"""A small client for the site's REST API (urllib only): JSON requests, uploads, one-line errors.

Every failure becomes a `RemoteError` whose message is one line and whose `exit_code` is 2
for what the user can fix (refusals, bad tokens, an unreachable server) and 3 for a failure
of the platform itself (HTTP 5xx). Redirects are never followed: the token must not travel
to another address, and a redirect usually means a wrong `--server` (http instead of https).
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from armada import __version__
from armada.cli.common import CliError
from armada.cli.config import TOKEN_ENV

#: Seconds one request may take before it counts as a network error.
REQUEST_TIMEOUT_S = 30.0
#: The API version this SDK speaks (`GET /api/version/` answers `{"api": 1, "sdk": ...}`).
API_VERSION = 1
#: Largest answer read (a version's log tail is a few KiB).
MAX_RESPONSE_BYTES = 8 * 1024 * 1024
USER_AGENT = f"armada-cli/{__version__} (python {sys.version_info.major}.{sys.version_info.minor})"


class RemoteError(CliError):
    """A failure talking to the server: one line; exit status 2 (the user's to fix) or 3 (the platform's)."""

    def __init__(self, message: str, exit_code: int = 2, status: int | None = None,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.status = status
        #: A 429's `Retry-After`, in seconds (None: not said).
        self.retry_after = retry_after


@dataclass(frozen=True)
class Upload:
    """A file to send as the multipart part `file`."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises the 3xx as an HTTPError, handled like any refusal


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_NoRedirect())


def multipart_body(fields: dict[str, Upload]) -> tuple[bytes, str]:
    """A multipart/form-data body holding each upload; returns (body, content type)."""
    parts, content_type = multipart_parts(fields)
    return b"".join(parts), content_type


def multipart_parts(fields: dict[str, Upload]) -> tuple[list[bytes], str]:
    """The pieces of a multipart/form-data body (each upload's data as it is, not copied), and its type."""
    boundary = "armada-" + secrets.token_hex(16)
    chunks: list[bytes] = []
    for name, upload in fields.items():
        safe_name = upload.filename.replace("\\", "_").replace('"', "_").replace("\r", "_").replace("\n", "_")
        chunks.append(
            f"--{boundary}\r\n"
            f'Content-Disposition: form-data; name="{name}"; filename="{safe_name}"\r\n'
            f"Content-Type: {upload.content_type}\r\n\r\n".encode()
        )
        chunks.append(upload.data)
        chunks.append(b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return chunks, f"multipart/form-data; boundary={boundary}"


#: Bytes of an upload sent at a time when its progress is shown.
SEND_CHUNK = 1024 * 1024


def _sent_in_chunks(parts: list[bytes], on_sent: Callable[[int], None]) -> Iterator[bytes]:
    """The body's pieces in chunks of at most SEND_CHUNK, calling `on_sent(bytes)` after each."""
    for part in parts:
        view = memoryview(part)
        for start in range(0, len(view), SEND_CHUNK):
            chunk = bytes(view[start:start + SEND_CHUNK])
            yield chunk
            on_sent(len(chunk))


def _detail(status: int, reason: str, body: bytes) -> str:
    """The one-line reason of an error answer: its JSON "detail", else the HTTP status."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        data = None
    if isinstance(data, dict):
        if isinstance(data.get("detail"), str) and data["detail"].strip():
            text = data["detail"]
        else:  # a field-by-field validation error: {"name": ["..."]}
            text = "; ".join(f"{k}: {' '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in data.items())
    elif isinstance(data, list) and data:
        text = "; ".join(map(str, data))
    else:
        text = f"HTTP {status} {reason}".strip()
    return " ".join(text.split()) or f"HTTP {status}"


def _version_tuple(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in text.split("."))
    except (AttributeError, ValueError):
        return None


class ApiClient:
    """Requests to one Armada site, with `Authorization: Token ...` when a token is given."""

    def __init__(self, server: str, token: str | None = None, timeout: float | None = None) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout if timeout is not None else REQUEST_TIMEOUT_S
        self._opener = _opener()

    def url(self, path: str, query: dict[str, str] | None = None) -> str:
        """The absolute address of an API path on this server; RemoteError (exit status 3) for a path
        that does not start with one "/" (a link the server sent: `@evil.example/x` glued to the
        server would send the token to another host)."""
        if not path.startswith("/") or path.startswith("//"):
            raise RemoteError(f"{self.server} sent a link that is not a path on it ({path[:80]!r}; a path starts "
                              f"with one /): refusing to follow it", exit_code=3)
        return self.server + path + (("?" + urlencode(query)) if query else "")

    def request(self, method: str, path: str, *, query: dict[str, str] | None = None, json_body: Any = None,
                upload: Upload | None = None, timeout: float | None = None, auth: bool = True,
                on_sent: Callable[[int], None] | None = None) -> Any:
        """Send one request; returns the decoded JSON answer, raises RemoteError. With `on_sent`, an
        upload is sent in chunks and `on_sent(bytes)` is called after each (a progress bar)."""
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        data: bytes | Iterator[bytes] | None = None
        if json_body is not None:
            data = json.dumps(json_body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif upload is not None and on_sent is not None:
            parts, headers["Content-Type"] = multipart_parts({"file": upload})
            headers["Content-Length"] = str(sum(map(len, parts)))
            data = _sent_in_chunks(parts, on_sent)
        elif upload is not None:
            data, headers["Content-Type"] = multipart_body({"file": upload})
        if auth and self.token:
            headers["Authorization"] = f"Token {self.token}"
        # The server is an http(s) address (config.normalize_server), never file: or another scheme.
        req = urllib.request.Request(self.url(path, query), data=data, headers=headers, method=method)  # noqa: S310
        body = self._send(req, method, path, timeout, MAX_RESPONSE_BYTES)
        if not body:
            return None
        try:
            return json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise RemoteError(f"{method} {path}: the server's answer is not JSON; is {self.server} an Armada site?",
                              exit_code=3) from None

    def download(self, path: str, query: dict[str, str] | None = None, *, max_bytes: int) -> bytes:
        """GET a file (any content type) on this server, at most `max_bytes`; raises RemoteError."""
        headers = {"Accept": "*/*", "User-Agent": USER_AGENT}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        req = urllib.request.Request(self.url(path, query), headers=headers, method="GET")  # noqa: S310
        return self._send(req, "GET", path, None, max_bytes)

    def _send(self, req: urllib.request.Request, method: str, path: str, timeout: float | None,
              max_bytes: int) -> bytes:
        """The answer's body (at most `max_bytes`); every failure as a one-line RemoteError."""
        try:
            with self._opener.open(req, timeout=timeout or self.timeout) as resp:
                body = bytes(resp.read(max_bytes + 1))
        except urllib.error.HTTPError as exc:
            raise self._http_error(method, path, exc) from None
        except urllib.error.URLError as exc:
            raise RemoteError(f"cannot reach {self.server}: {self._reason(exc.reason)}") from None
        except TimeoutError:
            raise RemoteError(f"cannot reach {self.server}: no answer within {timeout or self.timeout:g} s") from None
        except (OSError, ValueError) as exc:  # connection reset mid-answer, ...
            raise RemoteError(f"cannot reach {self.server}: {self._reason(exc)}") from None
        except http.client.HTTPException as exc:  # not HTTP (another service on the port), an answer cut short
            raise RemoteError(f"{self.server} did not answer as a web server does ({exc.__class__.__name__}: "
                              f"{str(exc)[:80]!r}): check the server address, or a proxy in front "
                              "of it") from None
        if len(body) > max_bytes:
            raise RemoteError(f"{method} {path}: the answer is larger than {max_bytes} bytes", exit_code=3)
        return body

    @staticmethod
    def _reason(reason: object) -> str:
        if isinstance(reason, TimeoutError):
            return "timed out"
        if isinstance(reason, OSError) and reason.strerror:
            return reason.strerror
        return str(reason) or reason.__class__.__name__

    def _http_error(self, method: str, path: str, exc: urllib.error.HTTPError) -> RemoteError:
        try:
            body = exc.read(64 * 1024)
        except (OSError, http.client.HTTPException):
            body = b""
        status = exc.code
        detail = _detail(status, str(exc.reason or ""), body)
        if 300 <= status < 400:
            where = exc.headers.get("Location", "elsewhere")
            return RemoteError(f"{self.server} redirects {path} to {where}: give that address with --server "
                               "(redirects are not followed, so the token stays with its server)", status=status)
        if status == 401:
            if self.token and os.environ.get(TOKEN_ENV) == self.token:  # (it wins over what login stores)
                return RemoteError(f"the server refused the token in {TOKEN_ENV} ({detail}): set {TOKEN_ENV} to a "
                                   f"valid token, or unset it to use the one `armada login` stores", status=status)
            return RemoteError(f"the server refused the token ({detail}): run `armada login` again "
                               "(or set ARMADA_TOKEN)", status=status)
        if status >= 500:
            return RemoteError(f"the server failed on {method} {path} (HTTP {status}): {detail}",
                               exit_code=3, status=status)
        wait = str(exc.headers.get("Retry-After") or "").strip() if status == 429 else ""
        retry_after = int(wait) if wait.isascii() and wait.isdigit() and len(wait) < 7 else None
        if detail.startswith("HTTP "):  # no JSON: Armada's API answers every error with its reason
            return RemoteError(f"{method} {path}: {detail} (not JSON, so not from Armada's API: check the "
                               f"server address {self.server}, or a proxy in front of it)", status=status,
                               retry_after=retry_after)
        return RemoteError(f"{detail} (HTTP {status})", status=status, retry_after=retry_after)

    def check_version(self) -> dict[str, Any]:
        """Refuse a server speaking another API; warn on stderr when this SDK is older than the site's.
        Returns the site's answer (its limits, such as `upload_max_bytes` by game)."""
        try:
            info = self.request("GET", "/api/version/", auth=False)
        except RemoteError as exc:
            if exc.status == 404:
                path = urlsplit(self.server).path.rstrip("/")
                hint = f" (its address without {path}?)" if path else ""
                raise RemoteError(f"{self.server} has no /api/version/: is it an Armada site?{hint}",
                                  status=404) from None
            raise
        if not isinstance(info, dict) or "api" not in info:
            raise RemoteError(f"{self.server}/api/version/ answered {info!r}: is it an Armada site?")
        if info["api"] != API_VERSION:
            raise RemoteError(f"{self.server} speaks API version {info['api']!r} and this SDK "
                              f"({__version__}) speaks version {API_VERSION}: install the SDK the site offers")
        server_sdk = _version_tuple(info.get("sdk", ""))
        ours = _version_tuple(__version__)
        if server_sdk and ours and ours < server_sdk:
            print(f"armada: warning: this SDK is {__version__} and {self.server} runs {info['sdk']}: "
                  "upgrade the armada package to get the site's latest engines and checks", file=sys.stderr)
        return info

    def pages(self, path: str, query: dict[str, str], limit: int = 20) -> list[dict[str, Any]]:
        """Every result of a paginated list (at most `limit` pages), following "next" on this server only."""
        results: list[dict[str, Any]] = []
        page = self.request("GET", path, query=query)
        for _ in range(limit):
            if not isinstance(page, dict) or not isinstance(page.get("results"), list):
                raise RemoteError(f"GET {path}: expected a paginated list, got {str(page)[:80]!r}", exit_code=3)
            results.extend(r for r in page["results"] if isinstance(r, dict))
            nxt = page.get("next")
            if not nxt:
                break
            parts = urlsplit(nxt)
            page = self.request("GET", parts.path, query=dict(parse_qsl(parts.query, keep_blank_values=True)))
        return results


def run_remote(body: Callable[[], int]) -> int:
    """Run a command's body; a RemoteError prints its one line and gives its exit status."""
    try:
        return body()
    except RemoteError as exc:
        print(f"armada: error: {exc}", file=sys.stderr)
        return exc.exit_code
