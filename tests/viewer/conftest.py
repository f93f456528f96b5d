"""Browser tests of the replay viewer: Debian's headless Chromium driven by Playwright.

Nothing here touches the network: every request that is not file:// (or the fake site origin
some tests serve themselves with `page.route`) is aborted and recorded, and tests assert that
none was attempted. Locally a missing Chromium or Playwright skips these tests; under CI it
fails them (tests/support/services.py).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from armada.cli.main import main
from armada.replay import read_replay, write_replay
from tests.sdk.cli.bots import CRASH_AFTER_INIT, write_bot

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "sdk" / "armada" / "docs" / "images"
#: Origin of the fake site that some tests serve with page.route (never resolved, never contacted).
SITE = "http://armada.test"

#: A Mothership bot with fixed orders; NAME, SHIP, ATTACK, DEFENCE, PATTERN are filled in.
FIXED_ORDERS = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "init":
        reply = {"id": msg["id"], "name": NAME}
    elif msg["type"] == "orders":
        fighter = {"attack": ATTACK, "defence": DEFENCE, "pattern": PATTERN}
        reply = {"id": msg["id"], "mothership": {"defence": SHIP}, "fighters": [fighter] * 5}
    else:
        break
    print(json.dumps(reply), flush=True)
'''
#: Race names (MD-3 keeps printable names of up to 40 characters) that would run script if shown as HTML.
EVIL_NAMES = ("<img src=x onerror=window.__pwned=1>", "</script><script>alert(2)</script>")


def fixed_bot(folder: Path, name: str, ship: int, attack: int, defence: int, pattern: list[int]) -> Path:
    source = (FIXED_ORDERS.replace("NAME", json.dumps(name)).replace("SHIP", str(ship))
              .replace("ATTACK", str(attack)).replace("DEFENCE", str(defence)).replace("PATTERN", json.dumps(pattern)))
    return write_bot(folder, source)


def play(*args: str) -> None:
    assert main(["play", *args]) == 0


def html_for(replay_path: Path) -> Path:
    """`armada replay FILE --html OUT`, the command competitors run; returns OUT."""
    out = replay_path.with_suffix("").with_suffix(".html")
    assert main(["replay", str(replay_path), "--html", str(out)]) == 0
    return out


@dataclass
class Replays:
    galaxy: Path
    mothership: Path
    destruction: Path
    evil_galaxy: Path
    evil_mothership: Path
    forfeit_galaxy: Path
    forfeit_mothership: Path

    def load(self, name: str) -> dict[str, Any]:
        return read_replay(getattr(self, name))


@pytest.fixture(scope="session")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Replays:
    """Real replays played by the starter bots (and a few fixed-order bots) through the CLI."""
    d = tmp_path_factory.mktemp("replays")
    galaxy = d / "galaxy.json.gz"
    play("builtin:prober", "builtin:greedy", "--game", "galaxy", "--seed", "3", "--replay", str(galaxy))
    mothership = d / "mothership.json.gz"
    play("builtin:greedy", "builtin:balanced", "--game", "mothership", "--seed", "1", "--replay", str(mothership))
    hammer = fixed_bot(d / "hammer", "Hammer", 5, 10, 9, [5])
    glass = fixed_bot(d / "glass", "Glass", 1, 1, 1, [1])
    destruction = d / "destruction.json.gz"
    play(str(hammer), str(glass), "--game", "mothership", "--seed", "2", "--replay", str(destruction))
    evil1 = fixed_bot(d / "evil1", EVIL_NAMES[0], 30, 7, 7, [3])
    evil2 = fixed_bot(d / "evil2", EVIL_NAMES[1], 10, 11, 7, [5])
    evil_mothership = d / "evil-mothership.json.gz"
    play(str(evil1), str(evil2), "--game", "mothership", "--seed", "4", "--replay", str(evil_mothership))
    evil_galaxy = d / "evil-galaxy.json.gz"
    data = read_replay(galaxy)
    for seat, name in zip(data["seats"], EVIL_NAMES, strict=True):
        seat["name"] = name
    write_replay(data, evil_galaxy)
    crasher = write_bot(d / "crasher", CRASH_AFTER_INIT)
    forfeit_galaxy = d / "forfeit-galaxy.json.gz"
    play("builtin:greedy", str(crasher), "--game", "galaxy", "--seed", "5", "--replay", str(forfeit_galaxy))
    forfeit_mothership = d / "forfeit-mothership.json.gz"
    play(str(crasher), "builtin:greedy", "--game", "mothership", "--seed", "5", "--replay", str(forfeit_mothership))
    return Replays(galaxy, mothership, destruction, evil_galaxy, evil_mothership, forfeit_galaxy, forfeit_mothership)


@dataclass
class Watch:
    """What a page did that a test may not allow: network requests, console errors, dialogs."""

    requests: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    site: dict[str, tuple[int, str, bytes, dict[str, str]]] = field(default_factory=dict)

    def serve(self, path: str, body: bytes, content_type: str, status: int = 200,
              headers: dict[str, str] | None = None) -> str:
        """Answer SITE + path from the test itself; returns the URL."""
        self.site[path] = (status, content_type, body, headers or {})
        return SITE + path


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    """A fresh page whose network is cut off, with its console errors and dialogs recorded."""
    context = chromium.new_context(viewport={"width": 1000, "height": 760}, service_workers="block")
    watch = Watch()

    def route(r: Any) -> None:
        url = r.request.url
        if url.startswith("file:"):
            watch.files.append(url)
            r.continue_()
            return
        path = url[len(SITE):].split("#", 1)[0]
        if url.startswith(SITE + "/") and path in watch.site:
            status, ctype, body, headers = watch.site[path]
            r.fulfill(status=status, body=body, headers={"content-type": ctype, **headers})
            return
        watch.requests.append(url)
        r.abort()

    page = watched_page(context, watch, route, ("error", "warning"))
    yield page
    context.close()


def watched_page(context: Any, watch: Watch, route: Any, console: tuple[str, ...] = ("error",)) -> Any:
    """A new page of `context` whose every request goes through `route`, and whose console
    messages of the `console` types, page errors and dialogs (dismissed) go into `watch`."""
    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: watch.errors.append(m.text) if m.type in console else None)
    page.on("pageerror", lambda e: watch.errors.append(f"page error: {e}"))

    def on_dialog(d: Any) -> None:
        watch.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    page.watch = watch
    return page


def ready(page: Any, url: str) -> Any:
    """Open url and wait until the viewer is ready (or shows its error)."""
    page.goto(url)
    page.wait_for_selector(".armada-viewer[data-state=ready], .armada-viewer[data-state=error]")
    return page


def at_rest(page: Any) -> None:
    page.wait_for_selector(".armada-viewer[data-animating=false][data-playing=false]")


def save_screenshot(png: bytes, name: str) -> None:
    """Screenshots for sdk/armada/docs/images/ are written only when ARMADA_SAVE_SCREENSHOTS=1 (no churn in git)."""
    if os.environ.get("ARMADA_SAVE_SCREENSHOTS") == "1":
        IMAGES.mkdir(parents=True, exist_ok=True)
        (IMAGES / name).write_bytes(png)


def gz(data: dict[str, Any]) -> bytes:
    return gzip.compress(json.dumps(data).encode())
