"""`armada.extras.install_line`: an extra is installed by the address the SDK came from, never by
the bare name (`armada` on PyPI is another project)."""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

import pytest

from armada import extras


class _Dist:
    def __init__(self, direct_url: Any) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return None if self.direct_url is None else json.dumps(self.direct_url)


@pytest.mark.parametrize(("recorded", "line"), [
    ({"url": "https://arena.example/sdk/armada-0.1.0-py3-none-any.whl", "archive_info": {}},
     'pip install "armada[rl] @ https://arena.example/sdk/armada-0.1.0-py3-none-any.whl"'),
    ({"url": "file:///home/me/sdk", "dir_info": {}}, 'pip install "armada[rl] @ file:///home/me/sdk"'),
])
def test_the_line_names_where_the_sdk_came_from(monkeypatch, recorded, line):
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(recorded))
    assert extras.install_line("rl") == line


@pytest.mark.parametrize("recorded", [
    None, {"url": "git+ssh://x"}, {"nothing": 1}, "not a dict",
    {"url": "file:///work/sdk", "dir_info": {"editable": True}},  # the line would replace the checkout
    {"url": "https://github.com/x/armada", "vcs_info": {"vcs": "git", "commit_id": "ab"}},
])
def test_an_unknown_origin_says_where_to_find_the_address(monkeypatch, recorded):
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(recorded))
    line = extras.install_line("learn")
    assert line.startswith('pip install "armada[learn] @ URL"') and "/sdk/ page" in line


def test_no_installed_sdk_at_all(monkeypatch):
    def missing(name: str) -> Any:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    assert 'armada[rl] @ URL' in extras.install_line("rl")
