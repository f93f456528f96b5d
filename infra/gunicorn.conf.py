"""gunicorn's settings for the site, in one place: `make up` (infra/up.sh), the app image (web),
tests and benches (tests/support/localsite.py) all start `gunicorn -c infra/gunicorn.conf.py --bind ...`.

Workers from the cores (2 per core + 1; `WEB_WORKERS` overrides), each with `WEB_THREADS`
threads (gunicorn's threaded workers, so that slow clients cannot take the site down:
docs/deploy.md, "Slow clients"), forked from a master that loaded the site once, each replaced after
`WEB_MAX_REQUESTS` requests (1000) with a random jitter of up to a tenth of that, so that
workers do not all restart at once; the access log goes to standard output unless the command
line names a file (`--access-logfile`), each request's client named as the site names it
(`ClientLogger`: behind a trusted proxy, not the proxy). With ARMADA_LOG_FORMAT=json gunicorn's own lines (its
error log on standard error, the access log on standard output) are JSON objects too, like the
site's (armada_web.runtime.logs). gunicorn's own refusals (a request line or header past its
limits, a malformed request) answer JSON `{"detail": ...}` like every error of the site's API
(`write_json_error`), not gunicorn's HTML page; a request line too long for a page (any path
but /api/..., e.g. a 10,000-character ladder search) gets a short HTML page in the site's words.
"""

import gc
import html
import json
import os
import re
import threading

from gunicorn import glogging, util
from gunicorn.http import message
from gunicorn.http.errors import LimitRequestLine


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    try:
        return int(raw) if raw else default
    except ValueError as exc:
        raise SystemExit(f"environment variable {name} must be an integer, got {raw!r}") from exc


wsgi_app = "armada_web.wsgi:application"
# Django is imported once, in the master, before the workers fork: a worker (a new one after
# max_requests too) serves at once instead of importing the site first (seconds of CPU each).
preload_app = True
# No control socket (gunicorn 23+'s `gunicornc` interface): its default path, ~/.gunicorn/gunicorn.ctl,
# is one per user, so two sites on one machine (a second `make up`) would share it; nothing here
# uses it (make up stops the server by its signal).
control_socket_disable = True
workers = _int("WEB_WORKERS", 2 * len(os.sched_getaffinity(0)) + 1)
max_requests = _int("WEB_MAX_REQUESTS", 1000)
max_requests_jitter = _int("WEB_MAX_REQUESTS_JITTER", max(max_requests // 10, 1))
timeout = _int("WEB_TIMEOUT_S", 60)
# Threaded workers (gthread): a connection holds one of its worker's threads, not the whole process,
# while its request line and headers trickle in, so a few dozen slow clients (slowloris) leave the
# other threads serving; `make up` has no buffering proxy in front (docs/deploy.md, "Slow clients").
# A worker takes no more connections than it has threads (the rest wait in the kernel's queue for a
# worker with a free thread: none waits behind a slow client inside a busy worker), and, like the
# sync workers, closes each connection after its response (no keep-alive to hold a thread's place);
# a connection that sends nothing for 5 s goes back to the worker's loop and is closed.
worker_class = "gthread"
threads = _int("WEB_THREADS", 16)
worker_connections = threads
keepalive = 0
graceful_timeout = 20
accesslog = "-"
# The workers' heartbeat files in memory: a slow disk (or a container's overlay) never stalls them.
_SHM = "/dev/shm"  # noqa: S108 (gunicorn makes its own private files in it)
worker_tmp_dir = _SHM if os.path.isdir(_SHM) else None


#: Whether the request line this thread refused as too long asked for a page (not /api/...): a
#: gthread worker reads a request and answers its refusal in the same thread.
_refused = threading.local()
#: The start of a request line asking for the API (its errors are JSON), absolute form included.
_API_LINE = re.compile(rb"[A-Z]+ +(?:https?://[^/ ]*)?/api(?:/|\?| |$)")
#: gunicorn's own (this file may be read twice in one process: the tests do).
#: (None in a gunicorn without it: every refusal then stays JSON, and the server still starts.)
_read_line = getattr(message.Request, "read_line", None)
_read_line = getattr(_read_line, "__wrapped__", _read_line)

#: What a browser shows for a page's address past gunicorn's limit (no Django, so no template).
PAGE_TOO_LONG = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Address too long · Armada</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; background: #0b1020; color: #e8ecf8; margin: 2rem;">
<h1>This address is too long</h1>
<p>The site reads addresses of up to 4094 characters; this one is longer ({detail}).
A search needs far fewer: go back and shorten it.</p>
<p><a href="/" style="color: #5cc8ff;">Armada's home page</a></p>
</body></html>
"""


def read_line_noting_pages(self: message.Request, unreader: object, buf: bytearray, limit: int = 0) -> object:
    """gunicorn's `Request.read_line`, noting, when the line is too long, whether it asked for a page."""
    try:
        return _read_line(self, unreader, buf, limit)
    except LimitRequestLine:
        _refused.page = not _API_LINE.match(bytes(buf[:80]))
        raise


def write_json_error(sock: object, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's `util.write_error`, answering `{"detail": ...}` (a 414 for a request line past
    4094 bytes, a 431, a 400): these reach no Django code, and the API's schema says every error
    is JSON. A 414 for a page is a short HTML page instead (`PAGE_TOO_LONG`): a browser showed the
    JSON as text. Its workers call `util.write_error` through the module, so replacing it here holds in each."""
    page, _refused.page = getattr(_refused, "page", False), False
    if status_int == 414 and page:
        kind, body = "text/html; charset=utf-8", PAGE_TOO_LONG.format(detail=html.escape(mesg[:200])).encode()
    else:
        kind, body = "application/json", json.dumps({"detail": f"{reason.lower()}: {mesg}"[:500]}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin1") + body)


util.write_error = write_json_error
if _read_line is not None:
    read_line_noting_pages.__wrapped__ = _read_line  # type: ignore[attr-defined]
    message.Request.read_line = read_line_noting_pages


def on_starting(server: object) -> None:
    """Sweep the uploads' temporary files that a worker killed mid-upload left (web/upload_temp.py)."""
    _sweep_uploads()


def child_exit(server: object, worker: object) -> None:
    """The same after any worker ends (replaced after its requests, or killed in an upload)."""
    _sweep_uploads()


def _sweep_uploads() -> None:
    try:
        from pathlib import Path

        from django.conf import settings

        from armada_web.web import upload_temp

        upload_temp.sweep(Path(settings.FILE_UPLOAD_TEMP_DIR))  # (the site is loaded: preload_app)
    except Exception:  # noqa: S110 (a sweep never stops the web server; the next one tries again)
        pass


class ClientLogger(glogging.Logger):
    """gunicorn's logger, whose access log names the client as the site does (`%(h)s`: the address
    X-Forwarded-For gives when the request came through a trusted proxy, ARMADA_TRUSTED_PROXIES;
    armada_web.web.clients), not the proxy in front (compose's, or nginx on the host), and counts the
    bytes of a file it sent with sendfile (a static file's line said 0: gunicorn counts only writes)."""

    def atoms(self, resp: object, req: object, environ: dict, request_time: object) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        length = getattr(resp, "response_length", None)
        if atoms.get("B") == 0 and length and not getattr(resp, "_omits_body", False) and \
                getattr(req, "method", "") != "HEAD" and getattr(resp, "status_code", 200) not in (204, 304):
            atoms["b"], atoms["B"] = str(length), length
        try:
            from types import SimpleNamespace

            from armada_web.web.clients import client_address

            atoms["h"] = client_address(SimpleNamespace(META=environ))
        except Exception:  # noqa: S110 (a log line never fails a request: it keeps gunicorn's address)
            pass
        return atoms


logger_class = ClientLogger


def pre_fork(server: object, worker: object) -> None:
    """Freeze what the master loaded (Django, the site's modules) before a worker forks from it:
    the worker's full garbage collections then skip those objects. Without this one request in
    a hundred paid a collection over the whole preloaded heap (p99 three to five times the p50 on
    the API lists; with it about twice; bench/scale.py), and the frozen pages stay shared."""
    gc.freeze()

if os.environ.get("ARMADA_LOG_FORMAT") == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "armada_web.runtime.logs.JsonFormatter"}},
        "root": {"handlers": ["error"], "level": "INFO"},
        "handlers": {
            "error": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
            "access": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "gunicorn.error": {"handlers": ["error"], "level": "INFO", "propagate": False},
            "gunicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
    }
