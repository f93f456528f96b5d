"""A browser page on the site under test: every request outside its origin is aborted and
recorded; console errors, page errors and dialogs are recorded too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.viewer.conftest import Watch, watched_page

PASSWORD = "a-long-test-password-42"


@contextmanager
def site_page(chromium: Any, origin: str, width: int = 1100, height: int = 800, phone: bool = False) -> Iterator[Any]:
    """`phone`: a phone's screen (twice as dense, touch, a mobile viewport), as a phone's browser sees the site."""
    device = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True} if phone else {}
    context = chromium.new_context(viewport={"width": width, "height": height}, service_workers="block", **device)
    watch = Watch()

    def route(r: Any) -> None:
        if r.request.url.startswith(origin + "/"):
            r.continue_()
            return
        watch.requests.append(r.request.url)
        r.abort()

    page = watched_page(context, watch, route)
    try:
        yield page
    finally:
        context.close()


def log_in(page: Any, origin: str, username: str, password: str = PASSWORD) -> None:
    page.goto(f"{origin}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{origin}/my/bots/")


def clean(page: Any) -> None:
    """No JavaScript error, no dialog, no request elsewhere, and no injected script ran."""
    assert page.watch.errors == [], page.watch.errors
    assert page.watch.dialogs == [] and page.watch.requests == []
    assert page.evaluate("typeof window.__pwned") == "undefined"
