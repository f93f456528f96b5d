"""Production settings refuse to be insecure: with DEBUG off the site (gunicorn), the workers and
manage.py will not start without a SECRET_KEY of their own (one line naming it, exit non-zero);
`check --deploy` finds nothing; HTTPS-only unless ARMADA_HTTPS says no, /healthz and /metrics never
redirected, the proxy trusted only through the header named; visitors only ever see the site's own
400, 403, 404 and 500 pages, the 500 with an id its log line carries."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY = "production-settings-test-key-0123456789-abcdefghijklmnop"


def run(argv: list[str], tmp_path: Path, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    # (DJANGO_ALLOW_ASYNC_UNSAFE: the browser tests set it in this process; no deployment has it)
    # (an ARMADA_ variable nothing reads in the caller's shell would be armada.W001: not this test's subject)
    from armada_web.runtime.unknown import unknown_variables

    stray = {name for name, _near in unknown_variables(os.environ)}
    clean = {k: v for k, v in os.environ.items()
             if k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "ARMADA_HTTPS", "DJANGO_ALLOW_ASYNC_UNSAFE", *stray)}
    clean.update({"ARMADA_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "armada_web.settings", **env})
    return subprocess.run(argv, cwd=ROOT, env=clean, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("program", ["manage.py", "celery worker", "gunicorn"])
@pytest.mark.parametrize(("key", "problem"), [("", "is not set"), ("changeme", "is too weak")])
def test_without_a_key_of_its_own_nothing_starts_with_debug_off(program, key, problem, tmp_path):
    argv = {"manage.py": [sys.executable, "manage.py", "check"],
            "celery worker": [sys.executable, "-m", "celery", "-A", "armada_web", "worker", "-Q", "never-consumed",
                              "--pool", "solo"],
            "gunicorn": [sys.executable, "-m", "gunicorn", "-c", "infra/gunicorn.conf.py", "--bind", "127.0.0.1:0"],
            }[program]
    done = run(argv, tmp_path, DEBUG="false", SECRET_KEY=key)
    assert done.returncode != 0
    lines = [line for line in done.stderr.strip().splitlines() if line.startswith("armada:")]
    assert lines and lines[0].startswith(f"armada: environment variable SECRET_KEY {problem}"), done.stderr[-2000:]
    assert "with DEBUG off the site needs a secret key of its own" in lines[0]
    assert "Traceback" not in done.stderr or program == "gunicorn"  # (gunicorn prints its own worker error too)


def test_check_deploy_finds_no_warning(tmp_path):
    done = run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], tmp_path,
               DEBUG="false", SECRET_KEY=KEY, ALLOWED_HOSTS="armada.example.org")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


PROBE = """
import json, django
django.setup()
from django.test import Client
from django.conf import settings
from django.test.utils import override_settings, setup_test_environment
setup_test_environment()
override_settings(STORAGES={**settings.STORAGES, "staticfiles": {  # (no collectstatic here: no manifest)
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}).enable()
c = Client()
out = {}
for name, path, extra in [("home", "/api/version/", {}), ("healthz", "/healthz", {}), ("metrics", "/metrics", {}),
                          ("proxied", "/api/version/", {"HTTP_X_FORWARDED_PROTO": "https"})]:
    r = c.get(path, HTTP_HOST="armada.example.org", **extra)
    out[name] = [r.status_code, r.headers.get("Location", ""), r.headers.get("Strict-Transport-Security", "")]
out["cookies"] = [settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE]
print(json.dumps(out))
"""


def _probe(tmp_path: Path, **env: str) -> dict:
    done = run([sys.executable, "-c", PROBE], tmp_path, DEBUG="false", SECRET_KEY=KEY,
               ALLOWED_HOSTS="armada.example.org", ARMADA_HEALTH_CHECKS="database", **env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_https_only_by_default_with_debug_off_and_the_proxy_trusted_through_its_header(tmp_path):
    out = _probe(tmp_path, ARMADA_PROXY_SSL_HEADER="X-Forwarded-Proto")
    assert out["home"][:2] == [301, "https://armada.example.org/api/version/"]
    assert out["healthz"][0] == 200  # the container's health check asks over plain HTTP
    assert out["metrics"][0] == 404  # not redirected either; nobody allowed here
    status, _, hsts = out["proxied"]
    assert status == 200 and hsts == "max-age=31536000; includeSubDomains; preload"
    assert out["cookies"] == [True, True]


def test_a_header_nobody_named_is_not_trusted(tmp_path):
    out = _probe(tmp_path)
    assert out["proxied"][:2] == [301, "https://armada.example.org/api/version/"]  # anyone could send it


def test_plain_http_when_the_switch_says_so(tmp_path):
    out = _probe(tmp_path, ARMADA_HTTPS="false")  # what `make up` sets
    assert out["home"] == [200, "", ""]
    assert out["cookies"] == [False, False]


# -- the error pages ----------------------------------------------------------------------------

@pytest.fixture
def production(settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.support.error_urls"


@pytest.mark.django_db
def test_a_missing_page_is_the_sites_own_404(client, production):
    response = client.get("/no/such/page/")
    body = response.content.decode()
    assert response.status_code == 404
    assert 'id="not-found"' in body and "Armada" in body
    assert "Page not found (404)" not in body and "URLconf" not in body  # Django's technical page


@pytest.mark.django_db
def test_a_server_error_is_the_sites_own_500_with_an_id_its_log_line_carries(client, production):
    from armada_web.runtime.logs import ContextFilter, JsonFormatter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    client.raise_request_exception = False
    try:
        response = client.get("/boom")
        api = client.get("/api/boom")
    finally:
        logger.removeHandler(handler)
    body = response.content.decode()
    assert response.status_code == 500
    assert 'id="server-error"' in body and "Traceback" not in body and "deliberate failure" not in body
    error_id = body.split('id="error-id">')[1].split("<")[0]
    assert len(error_id) == 12
    assert api.status_code == 500 and api.json()["error_id"] != error_id
    assert api.json()["detail"].startswith(f"server error {api.json()['error_id']}: ")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    page_line = next(line for line in lines if line.get("error_id") == error_id)
    assert page_line["message"] == "Internal Server Error: /boom" and page_line["status"] == 500
    assert "RuntimeError: deliberate failure" in page_line["exception"]  # the traceback stays in the log
    assert any(line.get("error_id") == api.json()["error_id"] for line in lines)


@pytest.mark.django_db
def test_a_wrong_host_and_a_stale_form_are_the_sites_own_pages(client, production, settings):
    settings.ALLOWED_HOSTS = ["armada.example.org"]
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400 and 'id="bad-request"' in response.content.decode()
    csrf = type(client)(enforce_csrf_checks=True)
    response = csrf.post("/accounts/login/", {"username": "x", "password": "y"}, HTTP_HOST="armada.example.org")
    assert response.status_code == 403 and 'id="csrf-failure"' in response.content.decode()


def test_gunicorn_freezes_the_preloaded_site_before_each_worker_forks():
    """A worker's full collections skip the master's heap (the p99 of bench/scale.py, issue 17)."""
    import gc
    import runpy

    conf = runpy.run_path(str(Path(__file__).resolve().parents[2] / "infra" / "gunicorn.conf.py"))
    assert conf["preload_app"] is True
    gc.unfreeze()
    try:
        conf["pre_fork"](None, None)
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()


def test_gunicorn_serves_with_threads_a_worker_taking_no_more_connections_than_threads(monkeypatch):
    """Slow clients hold a thread, never a worker, and no request waits behind one inside a worker
    (docs/deploy.md, "Slow clients"; measured by tests/live/test_slow_clients_live.py)."""
    import runpy

    path = str(Path(__file__).resolve().parents[2] / "infra" / "gunicorn.conf.py")
    conf = runpy.run_path(path)
    assert conf["worker_class"] == "gthread"
    assert conf["threads"] == 16 and conf["worker_connections"] == conf["threads"] and conf["keepalive"] == 0
    assert callable(conf["pre_fork"]) and conf["preload_app"] is True
    monkeypatch.setenv("WEB_THREADS", "4")
    conf = runpy.run_path(path)
    assert conf["threads"] == 4 and conf["worker_connections"] == 4


def test_gunicorns_own_refusals_are_json_like_the_apis_errors():
    """A request line past gunicorn's limit never reaches Django: its 414 (and its 400s, 431) are
    `{"detail": ...}` JSON all the same (issue 30: every answer under /api/ is JSON)."""
    import json
    import runpy
    import socket

    from gunicorn import util

    original = util.write_error
    try:
        conf = runpy.run_path(str(Path(__file__).resolve().parents[2] / "infra" / "gunicorn.conf.py"))
        assert util.write_error is conf["write_json_error"]  # what the workers call
        ours, theirs = socket.socketpair()
        with ours, theirs:
            util.write_error(ours, 414, "URI Too Long", "Request Line is too large (4928 > 4094)")
            ours.close()
            answer = theirs.recv(65536).decode("latin1")
    finally:
        util.write_error = original
    head, body = answer.split("\r\n\r\n", 1)
    assert head.startswith("HTTP/1.1 414 URI Too Long\r\n") and "Content-Type: application/json" in head
    assert f"Content-Length: {len(body)}" in head
    assert json.loads(body) == {"detail": "uri too long: Request Line is too large (4928 > 4094)"}


@pytest.mark.parametrize(("path", "html"), [("/ladder/galaxy/?q=", True), ("/", True), ("/api/bots/?q=", False),
                                            ("http://site.example/api/matches/?q=", False), ("/apis?q=", True)])
def test_a_pages_address_past_gunicorns_limit_gets_an_html_page(path, html):
    """A 10,000-character ladder search was a 414 whose JSON a browser showed as text: a page's
    refusal is HTML now, the API's stays JSON (its schema says so)."""
    import json
    import runpy
    import socket

    from gunicorn import util
    from gunicorn.config import Config
    from gunicorn.http import message
    from gunicorn.http.errors import LimitRequestLine
    from gunicorn.http.parser import RequestParser

    original, read_line = util.write_error, message.Request.read_line
    try:
        runpy.run_path(str(Path(__file__).resolve().parents[2] / "infra" / "gunicorn.conf.py"))
        line = f"GET {path}{'x' * 10_000} HTTP/1.1\r\nHost: a\r\n\r\n".encode()
        with pytest.raises(LimitRequestLine) as refused:
            next(RequestParser(Config(), iter([line]), ("127.0.0.1", 5)))
        ours, theirs = socket.socketpair()
        with ours, theirs:
            util.write_error(ours, 414, "URI Too Long", str(refused.value))
            ours.close()
            answer = theirs.recv(65536).decode("utf-8")
    finally:
        util.write_error, message.Request.read_line = original, read_line
    head, body = answer.split("\r\n\r\n", 1)
    assert head.startswith("HTTP/1.1 414 URI Too Long\r\n")
    if html:
        assert "Content-Type: text/html; charset=utf-8" in head and "<h1>This address is too long</h1>" in body
        assert f"Content-Length: {len(body.encode())}" in head
    else:
        assert "Content-Type: application/json" in head
        assert json.loads(body)["detail"].startswith("uri too long: ")


def test_the_access_log_names_the_client_behind_a_trusted_proxy_not_the_proxy(armada):
    """Under compose every line of gunicorn's access log named the proxy (an operator's trial): `%(h)s`
    is now the client the site believes (armada_web.web.clients), and only from a trusted proxy."""
    import runpy
    from types import SimpleNamespace

    from gunicorn.config import Config

    conf = runpy.run_path(str(Path(__file__).resolve().parents[2] / "infra" / "gunicorn.conf.py"))
    assert conf["logger_class"] is conf["ClientLogger"]
    logger = conf["ClientLogger"](Config())
    response = SimpleNamespace(status="200 OK", headers=[], sent=10, response_length=10)
    request = SimpleNamespace(method="GET", path="/", query="", version=(1, 1), headers=[])

    def client(remote: str, forwarded: str) -> str:
        environ = {"REMOTE_ADDR": remote, "HTTP_X_FORWARDED_FOR": forwarded, "RAW_URI": "/",
                   "SERVER_PROTOCOL": "HTTP/1.1", "REQUEST_METHOD": "GET", "QUERY_STRING": "", "PATH_INFO": "/"}
        return logger.atoms(response, request, environ, SimpleNamespace(seconds=0, microseconds=5))["h"]

    armada(trusted_proxies=("172.16.0.0/12",))
    assert client("172.18.0.5", "203.0.113.7") == "203.0.113.7"  # compose's proxy, the visitor behind it
    assert client("172.18.0.5", "198.51.100.1, 203.0.113.7") == "203.0.113.7"  # the left one is the client's word
    assert client("192.0.2.9", "203.0.113.7") == "192.0.2.9"  # no proxy of ours: the header is not believed
    armada(trusted_proxies=())
    assert client("172.18.0.5", "203.0.113.7") == "172.18.0.5"


def test_the_access_log_counts_a_file_sent_with_sendfile():
    """gunicorn counts the bytes it writes, not those sendfile sends: a static file's line said 0 bytes."""
    import runpy
    from types import SimpleNamespace

    from gunicorn.config import Config

    conf = runpy.run_path(str(Path(__file__).resolve().parents[2] / "infra" / "gunicorn.conf.py"))
    logger = conf["ClientLogger"](Config())
    def sent(method: str, status: int, written: int, length: int | None) -> object:
        request = SimpleNamespace(method=method, path="/static/x.css", query="", version=(1, 1), headers=[])
        response = SimpleNamespace(status=f"{status} X", status_code=status, headers=[], sent=written,
                                   response_length=length)
        environ = {"REMOTE_ADDR": "192.0.2.9", "RAW_URI": "/static/x.css", "SERVER_PROTOCOL": "HTTP/1.1",
                   "REQUEST_METHOD": method, "QUERY_STRING": "", "PATH_INFO": "/static/x.css"}
        atoms = logger.atoms(response, request, environ, SimpleNamespace(seconds=0, microseconds=5))
        return atoms["b"], atoms["B"]

    assert sent("GET", 200, 0, 4096) == ("4096", 4096)  # sendfile: nothing written by gunicorn's own write
    assert sent("GET", 200, 512, 512) == ("512", 512)  # written: as gunicorn counts it
    assert sent("HEAD", 200, 0, 4096) == ("0", 0)  # no body sent
    assert sent("GET", 304, 0, None) == ("0", 0)
