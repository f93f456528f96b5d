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


def test_a_refused_token_is_dropped_and_the_public_replays_downloaded(site, home, tmp_path, capsys, monkeypatch):
    """A new competitor revoked their token, then `armada dataset download` stopped on "the server
    refused the token", though cli.md says no login is needed: the download now goes on without it."""
    monkeypatch.setenv("ARMADA_TOKEN", "revoked")
    site.forced[("GET", "/api/replays/")] = [(401, b'{"detail": "Invalid token."}', "application/json"),
                                             (200, b'{"results": [], "next": null}', "application/json")]
    code, err = download(site, tmp_path / "data", capsys, limit=2)
    assert code == 0, err
    assert "armada: note: the server refused the token in ARMADA_TOKEN (Invalid token.)" in err
    assert "the replays are public, so they are downloaded without it" in err
    first, second = site.seen("GET", "/api/replays/")
    assert first.headers.get("Authorization") == "Token revoked" and "Authorization" not in second.headers


def test_a_refused_token_of_armada_token_is_named(site, home, monkeypatch, capsys):
    """A bad ARMADA_TOKEN was answered "run `armada login` again", which changes nothing while the
    variable is set (it wins over the stored login)."""
    monkeypatch.setenv("ARMADA_TOKEN", "bogus")
    assert main(["challenge", "mybot", "rival", "--server", site.url]) == 2
    assert capsys.readouterr().err == ("armada: error: challenge refused: the server refused the token in ARMADA_TOKEN "
                                       "(Invalid token.): set ARMADA_TOKEN to a valid token, or unset it to use the "
                                       "one `armada login` stores\n")
