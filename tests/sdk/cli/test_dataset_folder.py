"""`armada dataset download` makes DIR only once the site answered: a site it cannot reach (a wrong
--server, no network) leaves no empty folder behind, only the one-line error."""

from __future__ import annotations

import socket

from armada.cli.main import main


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_site_leaves_no_empty_folder(home, tmp_path, capsys):
    folder = tmp_path / "replays" / "top"
    server = f"http://127.0.0.1:{closed_port()}"
    code = main(["dataset", "download", "--server", server, str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot reach {server}" in err
    assert not (tmp_path / "replays").exists()


def test_a_file_in_the_way_is_still_refused_before_any_request(home, tmp_path, capsys):
    (tmp_path / "top").write_text("not a folder")
    code = main(["dataset", "download", "--server", f"http://127.0.0.1:{closed_port()}", str(tmp_path / "top")])
    assert code == 2 and "exists and is not a folder" in capsys.readouterr().err


def test_a_filter_the_site_refuses_leaves_no_empty_folder_and_is_quoted_as_typed(site, home, tmp_path, capsys,
                                                                                 monkeypatch):
    from tests.sdk.cli.fake_site import TOKEN

    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    site.force("GET", "/api/replays/", 400, {"detail": "min_score must be from -1,000,000,000 to 1,000,000,000 "
                                                       "(shown ladder scores lie well inside); got '2e9'"})
    folder = tmp_path / "replays" / "top"
    code = main(["dataset", "download", "--min-score", "2e9", "--server", site.url, str(folder)])
    err = capsys.readouterr().err
    assert code != 0 and "got '2e9'" in err
    assert site.seen("GET", "/api/replays/")[0].query["min_score"] == ["2e9"]  # as typed, not '2000000000.0'
    assert not (tmp_path / "replays").exists()
