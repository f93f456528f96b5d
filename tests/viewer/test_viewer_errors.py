"""A replay the viewer cannot show gets a clear message, never a blank page; a forfeit shows why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.replay import read_replay
from armada.viewer import SCRIPTS, VIEWER_DIR, offline_html, offline_html_from_text
from tests.viewer.conftest import at_rest, gz, html_for, ready

pytestmark = pytest.mark.browser


def message(page) -> str:
    assert page.locator(".armada-viewer").get_attribute("data-state") == "error"
    return page.locator(".av-error[role=alert]").text_content()


def open_text(page, tmp_path: Path, text: str) -> str:
    path = tmp_path / "replay.html"
    path.write_text(offline_html_from_text(text), encoding="utf-8")
    ready(page, path.as_uri())
    return message(page)


def test_broken_json(page, tmp_path):
    text = open_text(page, tmp_path, '{"format": "armada-replay", "version": 1, "steps": [')
    assert "Cannot show this replay." in text and "not valid JSON" in text
    assert page.watch.errors == []


def test_unknown_version(page, tmp_path, replays):
    replay = replays.load("galaxy")
    replay["version"] = 2
    path = tmp_path / "v2.html"
    path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, path.as_uri())
    assert "format version 2; this viewer reads version 1 only" in message(page)


def test_not_a_replay(page, tmp_path):
    assert "not an Armada replay" in open_text(page, tmp_path, json.dumps({"format": "something-else"}))
    assert "field is missing" in open_text(page, tmp_path, json.dumps({"format": "armada-replay", "version": 1,
                                                                       "game": "galaxy"}))


def test_unknown_top_level_fields_are_ignored(page, tmp_path, replays):
    replay = replays.load("galaxy")
    replay["timings"] = {"1": [12, 15], "2": [3, 4]}
    path = tmp_path / "timings.html"
    path.write_text(offline_html(replay), encoding="utf-8")
    ready(page, path.as_uri())
    assert page.locator(".armada-viewer").get_attribute("data-state") == "ready"


@pytest.mark.parametrize(("body", "status", "expected"), [
    (b"\x1f\x8b\x08\x00garbage-not-gzip", 200, "gzip data is damaged"),
    (b"<html>not json</html>", 200, "not valid JSON"),
    (b"missing", 404, "HTTP 404"),
    (None, 200, "version 7"),
])
def test_broken_url(page, replays, body, status, expected):
    if body is None:
        replay = read_replay(replays.galaxy)
        replay["version"] = 7
        body = gz(replay)
    w = page.watch
    for name in SCRIPTS:
        w.serve(f"/static/{name}", (VIEWER_DIR / name).read_bytes(), "text/javascript")
    w.serve("/r.json.gz", body, "application/gzip", status=status)
    tags = "".join(f'<script src="/static/{n}"></script>' for n in SCRIPTS)
    url = w.serve("/m/", f'<div data-armada-src="/r.json.gz"></div>{tags}'.encode(), "text/html")
    ready(page, url)
    assert expected in message(page)
    assert w.requests == []


@pytest.mark.parametrize(("game", "loser"), [("galaxy", 2), ("mothership", 1)])
def test_forfeit_before_the_first_turn(page, replays, game, loser):
    ready(page, html_for(getattr(replays, f"forfeit_{game}")).as_uri())
    root = page.locator(".armada-viewer")
    assert root.get_attribute("data-state") == "ready"
    assert page.locator(".av-result").text_content().endswith("wins by forfeit")
    why = f"Crasher (seat {loser}): crashed" if game == "galaxy" else "no valid orders: crashed"
    assert why in root.text_content()
    page.locator(".av-play").click()
    at_rest(page)
    assert root.get_attribute("data-index") == "0"
    assert page.watch.errors == [] and page.watch.requests == []


@pytest.mark.parametrize("name", ["galaxy", "mothership"])
def test_fits_a_phone_screen(page, replays, name):
    page.set_viewport_size({"width": 390, "height": 800})
    ready(page, html_for(getattr(replays, name)).as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    board = page.locator(".av-board, .av-field").bounding_box()
    assert board and board["width"] > 300
