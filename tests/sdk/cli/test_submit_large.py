"""`armada submit` with model-sized versions (issue 25): the site's limit checked before anything
is sent, with the sizes and how to shrink; a progress bar while a large upload is sent."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from armada.cli import config
from armada.cli.commands import submit
from armada.cli.main import main
from armada.cli.packing import zip_folder
from armada.sizes import human_size
from tests.sdk.cli.bots import IDLE_GALAXY, write_bot
from tests.sdk.cli.fake_site import TOKEN, FakeSite

MIB = 1024 * 1024


@pytest.fixture
def logged_in(site: FakeSite, home: Path) -> FakeSite:
    config.save_credentials(config.Credentials(site.url, TOKEN, "alice"))
    return site


def model_bot(folder: Path, size: int) -> Path:
    write_bot(folder, IDLE_GALAXY)
    (folder / "model.onnx").write_bytes(random.Random(size).randbytes(size))  # noise: it does not compress
    return folder


def test_past_the_game_s_limit_it_says_the_sizes_and_how_to_shrink_before_sending(
        logged_in: FakeSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.api_info["upload_max_bytes"] = {"galaxy": 50_000, "mothership": 10 * MIB}
    folder = model_bot(tmp_path / "mybot", 80_000)
    size = len(zip_folder(folder))
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot"]) == 2
    err = capsys.readouterr().err
    assert f"mybot.zip is {size} bytes ({human_size(size)})" in err and "KiB)" in err and "at most 50000 bytes" in err
    assert "ONNX" in err and "quantise" in err and f"{logged_in.url}/docs/bots-environment/#model-files" in err
    assert logged_in.paths() == ["GET /api/version/"]  # nothing created, nothing sent


@pytest.mark.parametrize(("size", "unit", "name"), [(3 * MIB, 1024, "KiB"), (11 * MIB, MIB, "MiB")])
def test_a_large_upload_shows_its_progress_and_arrives_whole(logged_in: FakeSite, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str], size: int,
                                                            unit: int, name: str) -> None:
    folder = model_bot(tmp_path / "mybot", size)
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot", "--no-wait"]) == 0
    err = capsys.readouterr().err.splitlines()
    exact = len(zip_folder(folder))
    # under 10 MiB in KiB ("0/2 MiB" said little of 1.3 MiB), from 10 MiB up in tenths of MiB as the size
    total = -(-exact // unit) if unit == 1024 else f"{exact / MIB:.1f}"
    shown = f"{exact / MIB:.1f} MiB" if exact >= MIB else f"{-(-exact // 1024)} KiB"  # 11 MiB shows as 11.0 MiB
    assert err[-1].startswith("[" + "#" * 30 + "]") and f"{total}/{total} {name} of mybot.zip ({shown}) sent" in err[-1]
    upload = logged_in.seen("POST", "/api/bots/1/versions/")[0]
    assert upload.multipart() == {"file": ("mybot.zip", zip_folder(folder))}
    assert int(upload.headers["Content-Length"]) == len(upload.body)


def test_a_small_upload_shows_no_bar_and_the_limit_falls_back_to_the_default(
        logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "mybot", "--no-wait"]) == 0
    err = capsys.readouterr().err
    assert "KiB of" not in err and "MiB of" not in err
    assert submit.upload_limit({"api": 1}, "galaxy") == submit.upload_limit({"upload_max_bytes": {}}, "galaxy") \
        == 100 * MIB  # a site that does not say: its default
    assert submit.upload_limit({"upload_max_bytes": {"galaxy": 5}}, "galaxy") == 5


def test_past_the_limit_it_names_the_largest_files_of_the_zip(
        logged_in: FakeSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole zip's size does not say what to leave out: a forgotten checkpoint beside the model
    is named, with the size it takes in the zip."""
    logged_in.api_info["upload_max_bytes"] = {"galaxy": 100_000, "mothership": 10 * MIB}
    folder = model_bot(tmp_path / "mybot", 30_000)
    (folder / "checkpoints").mkdir()
    (folder / "checkpoints" / "epoch-99.pt").write_bytes(random.Random(1).randbytes(90_000))
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot"]) == 2
    err = capsys.readouterr().err
    assert "its largest files: checkpoints/epoch-99.pt (88 KiB), model.onnx (30 KiB), main.py" in err
    assert logged_in.paths() == ["GET /api/version/"]


def test_the_upload_bar_never_counts_past_the_files_size(logged_in: FakeSite, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The request's body is the zip within a few hundred bytes of form envelope: a zip just short of
    a whole KiB must still end at total/total (it read "1468/1467 KiB" on a live site)."""
    folder = model_bot(tmp_path / "mybot", 3 * MIB)
    short = (1020 - len(zip_folder(folder)) % 1024) % 1024  # the zip's size is 1020 past a whole KiB
    (folder / "model.onnx").write_bytes(random.Random(1).randbytes(3 * MIB + short))
    zipped = len(zip_folder(folder))
    assert zipped % 1024 == 1020
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot", "--no-wait"]) == 0
    counts = [line.split("] ", 1)[1].split(" KiB")[0] for line in capsys.readouterr().err.splitlines()
              if line.startswith("[")]
    done_total = [tuple(map(int, count.split("/"))) for count in counts]
    total = -(-zipped // 1024)
    assert done_total[-1] == (total, total) and all(done <= total for done, _ in done_total), done_total


def test_the_mib_bar_agrees_with_the_size_beside_it(logged_in: FakeSite, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The bar of a zip from 10 MiB up counts tenths of MiB, rounded as the size beside it is: a 12.0 MiB
    zip read "13/13 MiB of mybot.zip (12.0 MiB)" when it counted 1 MiB chunks rounded up."""
    folder = model_bot(tmp_path / "mybot", 12 * MIB)
    assert f"{len(zip_folder(folder)) / MIB:.1f}" == "12.0"
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot", "--no-wait"]) == 0
    bars = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert "] 12.0/12.0 MiB of mybot.zip (12.0 MiB) sent (" in bars[-1]
    figures = [line.split("] ", 1)[1].split(" MiB")[0].split("/") for line in bars]
    assert all(total == "12.0" and float(done) <= 12.0 for done, total in figures), figures
    size = 30 * MIB + 300  # "30.0 MiB": a part is rounded down, so never past 30.0
    assert [submit._bar_figure(count, size) for count in (0, MIB // 10 + 1, 30 * MIB - 1, 30 * MIB + 299, size)] == \
        ["0.0", "0.1", "29.9", "30.0", "30.0"]
    assert submit._bar_figure(31 * MIB - 1, 31 * MIB - 1) == "31.0"  # the whole rounded as its size: 31.0 MiB
    assert [submit._bar_figure(count, 3 * MIB + 1) for count in (1023, 3 * MIB, 3 * MIB + 1)] == ["0", "3072", "3073"]


def test_a_folder_past_the_unpacked_limit_is_refused_before_reading_with_sizes_and_advice(tmp_path):
    """250 MiB of files (past the 200 MiB a version unpacks to): said with the sizes, the largest
    files and how to shrink, like the zip's limit (it said only "more than 209715200 bytes of files
    to send"), and before a byte is read (the file here is sparse: reading it would take a while)."""
    from armada.botspec import MAX_UNCOMPRESSED_BYTES
    from armada.cli.common import CliError
    from armada.cli.packing import zip_folder

    folder = tmp_path / "widebot"
    folder.mkdir()
    (folder / "main.py").write_text("print('hi')\n")
    with open(folder / "weights.bin", "wb") as handle:
        handle.truncate(250 * 1024 * 1024)
    assert MAX_UNCOMPRESSED_BYTES == 200 * 1024 * 1024
    with pytest.raises(CliError) as refused:
        zip_folder(folder)
    message = str(refused.value)
    assert f"{folder}: its files hold 262144012 bytes (250.0 MiB) and a version unpacks to at most 209715200 " \
           "bytes (200.0 MiB); nothing was sent; its largest files: weights.bin (250.0 MiB), main.py (12 bytes)" \
        in message
    assert "To fit, shrink it: export the model to ONNX" in message
    assert message.endswith('(`armada docs bots-environment`, "Model files")')  # offline too, not a repository path


def test_a_zip_past_what_play_unpacks_gets_the_sites_limit_and_its_sizes(
        logged_in: FakeSite, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A competitor's trial: a 104.9 MiB zip was refused by the local unpacking check ("zip too
    large: ... (limit 104857600)"), not with the site's limit, the sizes, the largest files and how
    to shrink as cli.md shows, which a folder of the same size got; and a site whose organisers
    allow more than 100 MiB could never be sent such a zip. The site's limit decides."""
    from armada.cli import packing

    monkeypatch.setattr(packing, "MAX_ZIP_BYTES", 40_000)  # what this machine unpacks, scaled down
    folder = model_bot(tmp_path / "mybot", 60_000)
    archive = tmp_path / "big.zip"
    archive.write_bytes(zip_folder(folder))
    logged_in.api_info["upload_max_bytes"] = {"galaxy": 50_000, "mothership": 10 * MIB}
    assert main(["submit", str(archive), "--game", "galaxy", "--bot", "mybot"]) == 2
    err = capsys.readouterr().err
    assert f"big.zip is {archive.stat().st_size} bytes" in err and "at most 50000 bytes" in err
    assert "nothing was sent; its largest files: model.onnx" in err and "ONNX" in err
    assert logged_in.paths() == ["GET /api/version/"]
    logged_in.api_info["upload_max_bytes"] = {"galaxy": 100_000, "mothership": 10 * MIB}  # a larger limit
    assert main(["submit", str(archive), "--game", "galaxy", "--bot", "mybot", "--no-wait"]) == 0
    sent = logged_in.seen("POST", "/api/bots/1/versions/")[0].multipart()["file"]
    assert sent[0] == "big.zip" and sent[1] == archive.read_bytes()


def test_a_zip_the_site_would_refuse_is_refused_before_a_bot_is_made(
        logged_in: FakeSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Too many files for the site's limit, or a file that packs like a zip bomb: said with what to
    do, before the bot is created (it would be left without a version) or anything is sent."""
    logged_in.api_info.update(upload_max_files=20, upload_max_unpacked_bytes={"galaxy": 50 * MIB})
    folder = model_bot(tmp_path / "mybot", 1000)
    (folder / "replays").mkdir()
    for number in range(25):
        (folder / "replays" / f"{number}.json.gz").write_bytes(b"x")
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot"]) == 2
    err = capsys.readouterr().err
    assert "mybot.zip: zip has too many entries: 27 (limit 20); leave data (replays, checkpoints) out" in err
    assert err.rstrip().endswith(f"nothing was sent (galaxy on {logged_in.url})")
    assert logged_in.paths() == ["GET /api/version/"]
    for number in range(25):
        (folder / "replays" / f"{number}.json.gz").unlink()
    (folder / "embeddings.bin").write_bytes(bytes(5_000_000))
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot"]) == 2
    err = capsys.readouterr().err
    assert "zip looks like a zip bomb: compression ratio" in err and "most of it is embeddings.bin (5,000,000 " in err
    assert "numpy.savez_compressed" in err and logged_in.bots == []
    logged_in.api_info["upload_max_unpacked_bytes"] = {"galaxy": 4_000_000}
    (folder / "embeddings.bin").write_bytes(random.Random(2).randbytes(4_500_000))
    assert main(["submit", str(folder), "--game", "galaxy", "--bot", "mybot"]) == 2
    err = capsys.readouterr().err
    assert "zip too large when extracted: 45" in err and logged_in.bots == []
    assert "its largest files: embeddings.bin (4.3 MiB)" in err  # as the 413's advice (a competitor's trial)
    assert "To fit, shrink it: export the model to ONNX" in err and "/docs/bots-environment/#model-files" in err


@pytest.mark.parametrize(("count", "shown"), [(1, "1 byte"), (46, "46 bytes"), (1023, "1023 bytes"), (1024, "1 KiB"),
                                              (1025, "2 KiB"), (MIB, "1.0 MiB")])
def test_sizes_under_a_kib_are_said_in_bytes(count: int, shown: str) -> None:
    """A competitor's trial: the size refusal listed `armada.json (1 KiB)` for a 46-byte file."""
    from armada.sizes import with_bytes

    assert human_size(count) == shown
    assert with_bytes(count) == (shown if count < 1024 else f"{count} bytes ({shown})")
