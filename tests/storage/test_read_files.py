"""A stored archive read in memory (`storage.archives.read_files`, the integrity checks' reader):
the same files `unpack` writes, by path relative to main.py's folder, filtered by suffix."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from armada.botspec import BotSpecError
from armada_web.storage.archives import check_upload, read_files, unpack
from tests.storage.test_archive_names import zipped


def test_read_files_gives_what_unpack_writes(tmp_path: Path) -> None:
    upload = zipped([("bot/main.py", b"import helpers\n"), ("bot/lib/helpers.py", b"X = 1\n"),
                     ("bot/data.json", b"{}"), ("bot/lib/", None)])
    archive = check_upload(name="bot.zip", data=upload).archive
    unpack(archive=archive, dest=str(tmp_path))
    on_disk = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert read_files(archive=archive) == on_disk == {"main.py": b"import helpers\n", "lib/helpers.py": b"X = 1\n",
                                                      "data.json": b"{}"}
    assert read_files(archive=archive, suffix=".py") == {"main.py": b"import helpers\n", "lib/helpers.py": b"X = 1\n"}


def test_read_files_checks_the_archive_again() -> None:
    """An archive that did not come through the upload check (a stored file swapped) is refused."""
    with pytest.raises(BotSpecError):
        read_files(archive=zipped([("main.py", b"x = 1\n"), ("../escape.py", b"y = 2\n")]))
    with pytest.raises(zipfile.BadZipFile):
        read_files(archive=b"not a zip")


def test_a_budget_reads_the_smallest_files_first_and_cuts_the_one_that_reaches_it(tmp_path: Path) -> None:
    """The integrity checks read at most a budget of a version's sources: a file of megabytes
    neither fills the reader's memory nor hides the small files beside it."""
    big = b"x = 1\n" * 400_000  # 2.4 MB, compresses to little
    upload = zipped([("main.py", b"import helpers\n"), ("a_tables.py", big), ("helpers.py", b"X = 1\n" * 10)])
    archive = check_upload(name="bot.zip", data=upload).archive
    read = read_files(archive=archive, suffix=".py", budget=100)
    assert read == {"main.py": b"import helpers\n", "helpers.py": b"X = 1\n" * 10, "a_tables.py": big[:25]}
    stored = tmp_path / "archive.zip"
    stored.write_bytes(archive)
    with stored.open("rb") as handle:  # a stored file, read through without holding the archive
        assert read_files(archive=handle, suffix=".py", budget=15) == {"main.py": b"import helpers\n"}
