"""A stored archive read in memory (`storage.archives.read_files`, the integrity checks' reader):
the same files `unpack` writes, by path relative to main.py's folder, filtered by suffix."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from armada.botspec import BotSpecError
from armada_web.storage.archives import check_upload, read_bounded, read_files, unpack
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


def test_bounds_read_the_entry_first_then_the_smallest_and_name_what_they_cut(tmp_path: Path) -> None:
    """The integrity checks read a bounded part of a version's sources: a file of megabytes neither
    fills the reader's memory nor hides the small files beside it, padding cannot push main.py out,
    and what is cut or left out is named."""
    big = b"x = 1\n" * 400_000  # 2.4 MB, compresses to little
    upload = zipped([("main.py", b"import helpers\n" * 20), ("a_tables.py", big), ("helpers.py", b"X = 1\n" * 10),
                     *[(f"pad{i}.py", b"y = 2\n" * 4) for i in range(5)]])
    archive = check_upload(name="bot.zip", data=upload).archive
    found = read_bounded(archive=archive, suffix=".py", budget=400, file_budget=100, first=("main.py",))
    assert found.files["main.py"] == (b"import helpers\n" * 20)[:100]  # first, cut at the file budget
    assert [path for path in found.files if path.startswith("pad")] == [f"pad{i}.py" for i in range(5)]
    assert found.files["helpers.py"] == b"X = 1\n" * 10 and found.files["a_tables.py"] == big[:100]
    assert found.unread == ["a_tables.py", "main.py"]
    tight = read_bounded(archive=archive, suffix=".py", budget=150, first=("main.py",))
    assert list(tight.files) == ["main.py"] and "helpers.py" in tight.unread  # the budget spent on main.py
    stored = tmp_path / "archive.zip"
    stored.write_bytes(archive)
    with stored.open("rb") as handle:  # a stored file, read through without holding the archive
        assert read_bounded(archive=handle, suffix=".py").files == read_files(archive=archive, suffix=".py")
