"""`armada dataset download` follows the server's links (`next`, each row's `url`) by their path on
the same server only (an absolute link's path and query): a link that is not a path
(`@evil.example/x`) glued to the server's address would name another host and send it the
token; it is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from armada.cli.client import ApiClient, RemoteError
from armada.cli.main import main
from tests.sdk.cli.fake_site import TOKEN, FakeSite

ROW = {"match": 7, "seed": 1, "players": ["a", "b"], "scores": [1, 0], "result": {}, "size": 3, "sha256": "0" * 64,
       "url": "/api/matches/7/replay/"}


@pytest.mark.parametrize("path", ["@evil.example/x", "//evil.example/x", "evil.example/x", ""])
def test_a_path_that_is_not_one_on_the_server_is_refused(path):
    client = ApiClient("https://site.example", token=TOKEN)
    with pytest.raises(RemoteError, match="not a path on it") as caught:
        client.url(path)
    assert caught.value.exit_code == 3
    assert client.url("/api/replays/", {"page": "2"}) == "https://site.example/api/replays/?page=2"


def download(site: FakeSite, folder: Path, capsys, limit: int) -> tuple[int, str]:
    code = main(["dataset", "download", "--game", "galaxy", "--limit", str(limit), "--server", site.url, str(folder)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("link", ["@evil.example/x?page=2", "evil.example/x"])
def test_a_next_link_off_the_server_is_not_followed(site, home, tmp_path, capsys, monkeypatch, link):
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    site.force("GET", "/api/replays/", 200, {"results": [ROW], "next": link})
    code, err = download(site, tmp_path / "data", capsys, limit=2)
    assert code == 3 and "sent a link that is not a path on it" in err and "refusing to follow it" in err
    assert sorted(set(site.paths())) == ["GET /api/replays/", "GET /api/version/"]


def test_a_row_whose_url_is_off_the_server_is_not_fetched(site, home, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    site.force("GET", "/api/replays/", 200, {"results": [{**ROW, "url": "@evil.example/7.json.gz"}], "next": None})
    code, err = download(site, tmp_path / "data", capsys, limit=1)
    assert code == 3 and "'@evil.example/7.json.gz'" in err
    assert sorted(set(site.paths())) == ["GET /api/replays/", "GET /api/version/"]
