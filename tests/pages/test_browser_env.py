"""The suite's Chromium loads pages whole while Docker networks come and go (tests/support/browser_env.py).

Other tests start containers, Compose stacks and a second engine in parallel with the browser
tests; a Chromium that watches the host's network interfaces aborts its requests in flight
(net::ERR_NETWORK_CHANGED) each time one changes, as the official CI run of edc211f showed.
"""

from __future__ import annotations

import http.server
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ARGS, CHROMIUM
from tests.support.services import require_docker

SCRIPTS = 20
PAGE = "<!doctype html><title>t</title>" + "".join(f'<script src="/s{i}.js"></script>' for i in range(SCRIPTS))


class Slow(http.server.BaseHTTPRequestHandler):
    """The page and its scripts, each script after 20 ms: requests stay in flight."""

    def do_GET(self) -> None:
        if self.path.startswith("/s"):
            time.sleep(0.02)
            body, kind = b"window.ran = (window.ran || 0) + 1;", "text/javascript"
        else:
            body, kind = PAGE.encode(), "text/html"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def origin() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def network_churn() -> Iterator[None]:
    """Docker networks created and removed without pause, as the Docker tests do."""
    require_docker()
    import docker

    client = docker.from_env()
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            name = f"armada-test-churn-{uuid.uuid4().hex[:8]}"
            client.networks.create(name, labels={"armada.test": "churn"}).remove()

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(timeout=30)
    for network in client.networks.list(filters={"label": "armada.test=churn"}):
        network.remove()


def load(browser: Any, url: str, *, times: int, seconds: float, until_error: bool) -> tuple[int, list[str]]:
    """Load `url` `times` times or for `seconds`, whichever ends first; the loads and the errors (a
    console error, a failed load, a script that did not run)."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    loads, end = 0, time.monotonic() + seconds
    while loads < times and time.monotonic() < end and not (until_error and errors):
        try:
            page.goto(f"{url}/?{loads}")
            ran = page.evaluate("window.ran")
            if ran != SCRIPTS:
                errors.append(f"{ran} of {SCRIPTS} scripts ran")
        except Exception as exc:  # a navigation aborted by the network change
            errors.append(str(exc).splitlines()[0])
        loads += 1
    page.close()
    return loads, errors


def test_network_changes_abort_a_plain_chromium_but_not_the_suites(
    chromium: Any, origin: str, network_churn: None
) -> None:
    plain = chromium.browser_type.launch(executable_path=CHROMIUM, args=ARGS)
    try:
        _, plain_errors = load(plain, origin, times=10_000, seconds=30, until_error=True)
    finally:
        plain.close()
    assert any("ERR_NETWORK_CHANGED" in error for error in plain_errors), "the churn changed nothing Chromium saw"
    loads, errors = load(chromium, origin, times=25, seconds=300, until_error=False)
    assert (loads, errors) == (25, [])  # (the churn goes on: about half a plain Chromium's loads fail)
