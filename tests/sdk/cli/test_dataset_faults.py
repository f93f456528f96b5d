"""`armada dataset download` against a site that limits it or a folder that cannot take the files
(an API trial and a competitor's trial): the site's request limit is waited out, a folder in the
way or a full disk is one line with the files already written kept, and a list that never ends
(empty pages that still link a next one) ends."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from armada.cli import datasets
from armada.cli.main import main
from tests.sdk.cli.fake_site import TOKEN, FakeSite

REPLAY = b"\x1f\x8b replay bytes"


def row(match: int) -> dict[str, object]:
    return {"match": match, "seed": match, "players": ["a", "b"], "scores": [1, 0], "result": {},
            "size": len(REPLAY), "sha256": hashlib.sha256(REPLAY).hexdigest(), "url": f"/api/matches/{match}/replay/"}


def serve(site: FakeSite, *matches: int) -> None:
    site.force("GET", "/api/replays/", 200, {"results": [row(m) for m in matches], "next": None})
    for match in matches:
        site.force("GET", f"/api/matches/{match}/replay/", 200, REPLAY, "application/gzip")


def download(site: FakeSite, folder: Path, capsys, limit: int = 5) -> tuple[int, str]:
    code = main(["dataset", "download", "--limit", str(limit), "--server", site.url, str(folder)])
    return code, capsys.readouterr().err


def test_the_sites_request_limit_is_waited_out_and_the_download_goes_on(site, home, tmp_path, capsys, monkeypatch):
    """A trial's download of 1,000 replays stopped at 592 with "too many requests; try again in 45 s"."""
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    slept: list[float] = []
    monkeypatch.setattr(datasets.time, "sleep", slept.append)
    serve(site, 8, 7)
    limited = site.forced_answer(429, {"detail": "too many requests; try again in 45 s"}, headers={"Retry-After": "45"})
    site.forced[("GET", "/api/matches/7/replay/")] = [limited, site.forced_answer(200, REPLAY, "application/gzip")]
    code, err = download(site, tmp_path / "data", capsys)
    assert code == 0, err
    assert "armada: note: the site's request limit: waiting 45 s (until " in err
    assert slept == [46]
    assert (tmp_path / "data" / "7.json.gz").read_bytes() == REPLAY
    assert [json.loads(line)["match"] for line in (tmp_path / "data" / "manifest.jsonl").read_text().splitlines()] \
        == [8, 7]


def test_a_limit_without_a_wait_says_that_a_run_again_goes_on(site, home, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    monkeypatch.setattr(datasets.time, "sleep", lambda s: (_ for _ in ()).throw(AssertionError("no wait was said")))
    serve(site, 8, 7)
    site.force("GET", "/api/matches/7/replay/", 429, {"detail": "upload limit reached"})  # no Retry-After
    code, err = download(site, tmp_path / "data", capsys)
    assert code == 2
    assert "the replays written so far are kept: run the same command again later to go on" in err
    assert (tmp_path / "data" / "8.json.gz").read_bytes() == REPLAY  # the one before it is kept
    assert "Traceback" not in err


def test_a_folder_in_the_way_of_a_file_is_one_line_and_keeps_the_rest(site, home, tmp_path, capsys, monkeypatch):
    """A trial: `mkdir d/manifest.jsonl` (or a full disk) gave IsADirectoryError's traceback."""
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    serve(site, 8, 7)
    (tmp_path / "data" / "manifest.jsonl").mkdir(parents=True)
    code, err = download(site, tmp_path / "data", capsys)
    assert code == 2 and "Traceback" not in err
    assert f"armada: error: cannot write {tmp_path / 'data' / 'manifest.jsonl'}: " in err
    assert "the replays written so far are kept" in err
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["7.json.gz", "8.json.gz", "manifest.jsonl"]
    assert not list((tmp_path / "data").glob(".*.part"))


def test_empty_pages_that_link_a_next_one_end_the_list(site, home, tmp_path, capsys, monkeypatch):
    """A list answering empty pages that always link another would be followed for ever."""
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    site.force("GET", "/api/replays/", 200, {"results": [], "next": f"{site.url}/api/replays/?cursor=x"})
    code, err = download(site, tmp_path / "data", capsys)
    assert code == 0, err
    assert len(site.seen("GET", "/api/replays/")) == 1


def test_a_limit_that_never_lifts_ends_after_a_few_waits(site, home, tmp_path, capsys, monkeypatch):
    """A review: a proxy answering 429 with `Retry-After: 0` for ever kept the download asking, a
    request a second, without end."""
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    slept: list[float] = []
    monkeypatch.setattr(datasets.time, "sleep", slept.append)
    limited = site.forced_answer(429, {"detail": "slow down"}, headers={"Retry-After": "0"})
    site.forced[("GET", "/api/replays/")] = [limited] * 50
    code, err = download(site, tmp_path / "data", capsys)
    assert code == 2 and "run the same command again later to go on" in err
    assert len(slept) == datasets.MAX_WAITS and len(site.seen("GET", "/api/replays/")) == datasets.MAX_WAITS + 1


def test_a_retry_after_that_is_not_ascii_digits_is_no_wait(site, home, tmp_path, capsys, monkeypatch):
    """A review: `Retry-After: \u00b2` passed str.isdigit and int() raised a ValueError's traceback."""
    monkeypatch.setenv("ARMADA_TOKEN", TOKEN)
    site.force("GET", "/api/replays/", 429, {"detail": "slow down"})
    site.forced[("GET", "/api/replays/")] = site.forced_answer(429, {"detail": "slow down"},
                                                               headers={"Retry-After": "\u00b2"})
    code, err = download(site, tmp_path / "data", capsys)
    assert code == 2 and "Traceback" not in err and "run the same command again later to go on" in err
