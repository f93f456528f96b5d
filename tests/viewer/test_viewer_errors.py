"""A replay the viewer cannot show gets a clear message, never a blank page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.replay import read_replay
from armada.viewer import SCRIPTS, VIEWER_DIR, offline_html, offline_html_from_text
from tests.viewer.conftest import gz, ready

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
