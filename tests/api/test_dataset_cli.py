"""`armada dataset download` against the Django test server (in this process): the newest rows that
match, checked files written as served, the manifest, runs again fetching only what is missing or
damaged, a damaged transfer refused, the throttle's refusal, and the folder read by `read_dataset`."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from armada.cli.main import main
from armada.replay import read_dataset
from tests.support.replays import public_match


@pytest.fixture
def site(transactional_db, live_server, make_user, valid_version, tmp_path, monkeypatch):
    """The test server with three public Galaxy replays (and a challenge, and a low-rated match), newest last."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("ARMADA_TOKEN", raising=False)
    monkeypatch.delenv("ARMADA_SERVER", raising=False)
    a = valid_version(make_user("alice"), "alpha")
    b = valid_version(make_user("bob"), "bravo", starter="random")
    made = [public_match(a, b), public_match(b, a, seed=4)]
    public_match(a, b, kind="challenge")
    public_match(a, b, ratings=((25.0, 3.0), (5.0, 3.0)))  # bravo's shown score was -4
    made.append(public_match(a, b, seed=5))
    return live_server.url, [m.pk for m in made]


def download(server: str, folder: Path, capsys, *extra: str) -> tuple[int, str, str]:
    code = main(["dataset", "download", "--game", "galaxy", "--min-score", "10", "--limit", "2",
                 "--server", server, *extra, str(folder)])
    out, err = capsys.readouterr()
    return code, out, err


def test_downloads_the_newest_rows_checked_with_a_manifest_and_resumes(site, tmp_path, capsys, request):
    import os

    previous = os.umask(0o022)  # (under 077 the umask's mode is mkstemp's: the mode check could not fail)
    request.addfinalizer(lambda: os.umask(previous))
    server, made = site
    folder = tmp_path / "data"
    code, out, err = download(server, folder, capsys)
    assert code == 0, err
    fetched = sum(p.stat().st_size for p in folder.glob("*.gz"))
    assert out.splitlines() == [f"2 replays in {folder}: 2 downloaded ({fetched:,} bytes), 0 already there",
                                f"manifest: {folder / 'manifest.jsonl'}"]
    assert "2/2 replays" in err  # the progress bar's last line (stderr is no terminal here)
    rows = [json.loads(line) for line in (folder / "manifest.jsonl").read_text().splitlines()]
    assert [row["match"] for row in rows] == [made[2], made[1]]  # newest first; the low-rated match is not there
    for row in rows:
        data = (folder / row["file"]).read_bytes()
        assert row["file"] == f"{row['match']}.json.gz" and row["players"] and row["scores"]
        assert (len(data), hashlib.sha256(data).hexdigest()) == (row["size"], row["sha256"])
        assert json.loads(gzip.decompress(data))["format"] == "armada-replay"
    assert sorted(p.name for p in folder.iterdir()) == sorted([*(r["file"] for r in rows), "manifest.jsonl"])
    # the umask's mode, as any file the user writes (a competitor's trial: rw------- from mkstemp)
    assert {p.stat().st_mode & 0o777 for p in folder.iterdir()} == {0o644}
    examples = list(read_dataset(folder))  # what an imitation learner reads
    assert [e.row["match"] for e in examples] == [made[2], made[1]] and all(e.pairs[1] for e in examples)

    (folder / rows[0]["file"]).write_bytes(b"damaged")
    (folder / f".{rows[1]['file']}.x1y2.part").write_bytes(b"half")  # left by a run killed outright
    code, out, _err = download(server, folder, capsys)
    assert code == 0 and "1 downloaded" in out and "1 already there" in out
    assert (folder / rows[0]["file"]).stat().st_size == rows[0]["size"]
    assert not list(folder.glob(".*"))  # no partial file kept
    code, out, err = download(server, folder, capsys)
    assert code == 0 and "0 downloaded (0 bytes), 2 already there" in out and "only" not in err
    code, out, err = download(server, folder, capsys, "--limit", "5")  # more than the site has
    assert code == 0 and "1 downloaded" in out and "2 already there" in out
    assert err.strip().splitlines()[-1] == ("armada: note: only 3 replays match (--limit 5): that is all the site "
                                            "has for these filters now")
    manifest = (folder / "manifest.jsonl").read_text()
    code, out, err = download(server, folder, capsys, "--since", "2999-01-01")  # matches nothing: the dataset stays
    assert code == 0 and out.startswith("0 replays") and (folder / "manifest.jsonl").read_text() == manifest
    assert "left as it was (3 rows of an earlier run: this one matched nothing)" in out
    assert len(list(read_dataset(folder))) == 3
    assert err.strip().splitlines()[-1] == ("armada: note: no finished ranked galaxy match has a public replay "
                                            "for --min-score 10 --since 2999-01-01")
    code, out, err = main(["dataset", "download", "--game", "mothership", "--server", server,
                           str(tmp_path / "races")]), *capsys.readouterr()
    assert code == 0 and out.startswith("0 replays")
    assert "armada: note: Mothership Down has no ranked matches to list" in err and "/replay/" in err
    assert "docs/arena.md" not in err and "armada league" in err  # a document the SDK has: `armada docs` lacks arena.md


def test_a_replay_that_is_not_the_listed_one_is_not_kept(site, tmp_path, capsys):
    from armada_web.matches.models import Match

    server, made = site
    Match.objects.filter(pk=made[2]).update(replay_sha256="0" * 64)
    folder = tmp_path / "data"
    code, _out, err = download(server, folder, capsys)
    assert code == 3
    assert f"armada: error: match {made[2]}: the replay received" in err and "nothing was kept" in err
    assert not folder.exists()  # no partial file, no manifest, no empty folder


def test_refusals_are_one_line_errors(site, tmp_path, capsys, monkeypatch):
    from armada_web.api.throttles import DatasetThrottle

    server, _made = site
    monkeypatch.setattr(DatasetThrottle, "rate", "1/min", raising=False)
    monkeypatch.setattr(DatasetThrottle, "num_requests", 1, raising=False)
    monkeypatch.setattr(DatasetThrottle, "duration", 60, raising=False)
    from armada.cli import datasets

    monkeypatch.setattr(datasets, "MAX_WAIT_S", 1)  # any wait of the throttle (up to 60 s) is past what is waited out
    code, _out, err = download(server, tmp_path / "data", capsys)
    assert code == 2
    assert err.strip().splitlines()[-1].startswith("armada: error: too many requests; try again in ")
    assert "(HTTP 429); the replays written so far are kept: run the same command again later to go on" in err
    (tmp_path / "file").write_text("x")
    code, _out, err = download(server, tmp_path / "file", capsys)
    assert code == 2 and err.strip() == f"armada: error: {tmp_path / 'file'} exists and is not a folder"


def test_an_interrupted_download_keeps_no_partial_file_and_resumes(site, tmp_path, capsys, monkeypatch):
    from armada import safefile

    server, made = site
    folder = tmp_path / "data"
    real_fsync, calls = safefile.os.fsync, []

    def interrupted(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:  # the second file, mid-write
            raise KeyboardInterrupt
        real_fsync(fd)

    monkeypatch.setattr(safefile.os, "fsync", interrupted)
    code, _out, err = download(server, folder, capsys)
    assert code == 130 and "armada: error: interrupted; the replays fetched so far stay in" in err
    assert "run the same command again to fetch the rest" in err
    assert [p.name for p in folder.iterdir()] == [f"{made[2]}.json.gz"]  # the first one, whole; no manifest yet
    monkeypatch.setattr(safefile.os, "fsync", real_fsync)
    code, out, _err = download(server, folder, capsys)
    assert code == 0 and "1 downloaded" in out and "1 already there" in out
