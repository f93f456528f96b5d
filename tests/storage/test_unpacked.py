"""The cache of unpacked versions (armada_web.storage.unpacked): once per host, read-only, safe
for two workers at once, never a torn entry, bounded (least recently used out), a full disk the
platform's problem (the game given back). No Docker: the files, the processes and the runner's
mapping of errors."""

from __future__ import annotations

import errno
import multiprocessing
import os
import random
import time
from pathlib import Path

import pytest

from armada.archive import normalised_zip
from armada_web.games import runner
from armada_web.storage import unpacked
from armada_web.storage.unpacked import Source

FILES = {"main.py": b"print('hi')\n", "weights/model.bin": bytes(range(256)) * 64}


def source(files: dict[str, bytes] = FILES, opened: list[int] | None = None, pause: float = 0.0) -> Source:
    archive = normalised_zip(files)
    base = Source.of_bytes(archive)

    def open_it():
        if opened is not None:
            opened.append(os.getpid())
        time.sleep(pause)
        return base.open()

    return Source(base.sha256, open_it)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_version_is_unpacked_once_read_only_and_linked_into_a_match_s_folder(tmp_path):
    opened: list[int] = []
    first = unpacked.entry(source=source(opened=opened), root=tmp_path / "cache", limit=1 << 30)
    again = unpacked.entry(source=source(opened=opened), root=tmp_path / "cache", limit=1 << 30)
    assert first.fresh and not again.fresh and len(opened) == 1  # the second match never read storage
    assert tree(first.files) == FILES and first.size == sum(map(len, FILES.values()))
    assert oct(first.files.stat().st_mode & 0o777) == "0o555"
    assert oct((first.files / "main.py").stat().st_mode & 0o777) == "0o444"
    code = tmp_path / "code"
    code.mkdir()
    unpacked.link_tree(first.files, code)
    assert tree(code) == FILES
    assert (code / "weights/model.bin").stat().st_ino == (first.files / "weights/model.bin").stat().st_ino  # no copy
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name.startswith(".")]  # nothing left aside


def _unpack_in_child(root: str, pause: float, answers: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    opened: list[int] = []
    found = unpacked.entry(source=source(pause=pause, opened=opened), root=Path(root), limit=1 << 30)
    answers.put((bool(opened), str(found.files), tree(found.files) == FILES))


def test_two_workers_unpacking_one_version_at_once_both_get_the_whole_entry(tmp_path):
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    workers = [context.Process(target=_unpack_in_child, args=(str(tmp_path), 0.5, answers)) for _ in range(2)]
    for worker in workers:
        worker.start()
    results = [answers.get(timeout=30) for _ in workers]
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    assert all(opened and whole for opened, _path, whole in results)  # both missed and unpacked at once
    assert {path for _opened, path, _whole in results} == {str(tmp_path / source().sha256 / "files")}
    assert [p.name for p in tmp_path.iterdir()] == [source().sha256]  # one entry; the loser's copy is gone


def test_a_torn_entry_or_a_killed_worker_s_leftovers_are_never_used(tmp_path):
    sha = source().sha256
    torn = tmp_path / sha / "files"  # named like an entry, never completed (no meta.json)
    torn.mkdir(parents=True)
    (torn / "main.py").write_bytes(b"print('hal")
    leftover = tmp_path / ".tmp-killedworker"  # a worker killed mid-unpack
    (leftover / "files").mkdir(parents=True)
    (leftover / "files" / "main.py").write_bytes(b"pri")
    found = unpacked.entry(source=source(), root=tmp_path, limit=1 << 30)
    assert found.fresh and tree(found.files) == FILES
    assert leftover.exists()  # young: it may be a live worker's
    old = time.time() - unpacked.STALE_S - 1
    os.utime(leftover, (old, old))
    unpacked.evict(tmp_path, limit=1 << 30)
    assert not leftover.exists()


def test_past_its_size_the_least_recently_used_versions_go(tmp_path):
    data = [random.Random(n).randbytes(10_000) for n in range(4)]  # noise: no zip bomb
    sources = [source({"main.py": f"print({n})\n".encode(), "data.bin": data[n]}) for n in range(3)]
    size = 10_000 + len(b"print(0)\n")
    made = []
    for n, item in enumerate(sources):
        made.append(unpacked.entry(source=item, root=tmp_path, limit=10 * size))
        stamp = time.time() - 100 + n  # used in this order
        os.utime(tmp_path / item.sha256 / unpacked.META, (stamp, stamp))
    assert unpacked.lookup(tmp_path, sources[0].sha256) is not None  # the oldest used again: now the newest
    code = tmp_path / "match"
    code.mkdir()
    unpacked.link_tree(made[1].files, code)  # a match is playing version 1
    newest = unpacked.entry(source=source({"main.py": b"print(3)\n", "data.bin": data[3]}), root=tmp_path,
                            limit=int(2.5 * size))
    left = {e.name for _used, _size, e in unpacked.entries(tmp_path)}
    assert left == {sources[0].sha256, newest.sha256}  # 1 and 2 were the least recently used
    assert tree(code)["data.bin"] == data[1]  # the playing match keeps its files (hard links)


def test_a_full_disk_empties_the_cache_once_then_gives_the_game_back(tmp_path, monkeypatch, armada):
    armada(unpack_cache_dir=str(tmp_path / "cache"))
    other = unpacked.entry(source=source({"main.py": b"print('other')\n"}), root=tmp_path / "cache", limit=1 << 30)
    real_unpack = unpacked.unpack
    failures = [1]

    def full_once(**kwargs):
        if failures:
            failures.pop()
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_unpack(**kwargs)

    monkeypatch.setattr(unpacked, "unpack", full_once)
    found = unpacked.entry(source=source(), root=tmp_path / "cache", limit=1 << 30)
    assert tree(found.files) == FILES and not other.files.exists()  # room made, then unpacked

    def always_full(**kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(unpacked, "unpack", always_full)
    code = tmp_path / "code"
    code.mkdir()
    with pytest.raises(runner.SandboxFailure, match="no room to unpack"):  # given back, never void
        runner.place_code(seat=1, source=source({"main.py": b"print('new')\n"}), code_dir=code)
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name.startswith(".")]


def test_storage_that_cannot_be_read_is_a_platform_failure_naming_the_seat(tmp_path, armada):
    armada(unpack_cache_dir=str(tmp_path / "cache"))

    def lost():
        raise FileNotFoundError(errno.ENOENT, "no such object", "versions/1/1-abc.zip")

    code = tmp_path / "code"
    code.mkdir()
    with pytest.raises(runner.PlatformFailure, match="seat 2 could not be read from storage") as caught:
        runner.place_code(seat=2, source=Source("0" * 64, lost), code_dir=code)
    assert not isinstance(caught.value, runner.SandboxFailure)
