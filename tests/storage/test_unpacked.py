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
from armada_sandbox.folders import FolderNotPrivate
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


def test_storage_that_cannot_be_read_gives_the_game_back_naming_the_seat(tmp_path, armada):
    armada(unpack_cache_dir=str(tmp_path / "cache"))

    def lost():
        raise FileNotFoundError(errno.ENOENT, "no such object", "versions/1/1-abc.zip")

    code = tmp_path / "code"
    code.mkdir()
    with pytest.raises(runner.CodeUnavailable, match="seat 2 could not be read from storage") as caught:
        runner.place_code(seat=2, source=Source("0" * 64, lost), code_dir=code)
    assert isinstance(caught.value, runner.SandboxFailure)  # retryable: the match is given back, not void


def test_an_archive_whose_sha256_is_not_the_version_s_is_never_unpacked_as_it(tmp_path, armada):
    armada(unpack_cache_dir=str(tmp_path / "cache"))
    real = source()
    truncated = Source(real.sha256, lambda: __import__("io").BytesIO(normalised_zip(FILES)[:-100]))
    with pytest.raises(unpacked.SourceError, match="truncated or replaced"):
        unpacked.entry(source=truncated, root=tmp_path / "cache", limit=1 << 30)
    replaced = Source(real.sha256, source({"main.py": b"print('other')\n"}).open)
    code = tmp_path / "code"
    code.mkdir()
    with pytest.raises(runner.CodeUnavailable, match="seat 1 could not be read from storage"):
        runner.place_code(seat=1, source=replaced, code_dir=code)
    assert list((tmp_path / "cache").iterdir()) == [] and list(code.iterdir()) == []  # no entry, no temp folder
    # a source without a recorded sha256 (a starter bot: Source.of_bytes) is named after its digest
    assert unpacked.entry(source=Source("(in memory)", real.open), root=tmp_path / "cache",
                          limit=1 << 30).sha256 == real.sha256


def test_link_tree_raises_when_its_source_goes_instead_of_linking_nothing(tmp_path):
    code = tmp_path / "code"
    code.mkdir()
    with pytest.raises(FileNotFoundError):
        unpacked.link_tree(tmp_path / "gone", code)


def test_an_entry_being_linked_is_not_evicted(tmp_path, monkeypatch):
    found = unpacked.entry(source=source(), root=tmp_path, limit=1 << 30)
    real_link = unpacked.link_file
    removed: list[list[str]] = []

    def link_then_evict(src, dst):
        real_link(src, dst)
        if not removed:  # another worker makes room while this one links (flock: per open file, any process)
            removed.append(unpacked.evict(tmp_path, limit=0))

    monkeypatch.setattr(unpacked, "link_file", link_then_evict)
    code = tmp_path / "code"
    code.mkdir()
    unpacked.link_entry(found, code)
    assert removed == [[]] and tree(code) == FILES  # skipped: it was in use
    newer = unpacked.entry(source=source({"main.py": b"print('newer')\n"}), root=tmp_path, limit=1 << 30)
    monkeypatch.setattr(unpacked, "link_file", real_link)
    with unpacked._shared(found.files.parent):  # the older one is being linked: the newer one goes instead
        assert unpacked.evict(tmp_path, limit=found.size) == [newer.sha256]
    assert unpacked.evict(tmp_path, limit=0) == [source().sha256]  # once linked, it may go


def _evict_while_linked(root: str, started, done) -> None:  # type: ignore[no-untyped-def]
    started.wait(10)
    done.put(unpacked.evict(Path(root), limit=0))


def test_another_process_cannot_evict_an_entry_being_linked(tmp_path, monkeypatch):
    found = unpacked.entry(source=source(), root=tmp_path, limit=1 << 30)
    context = multiprocessing.get_context("fork")
    started, done = context.Event(), context.Queue()
    child = context.Process(target=_evict_while_linked, args=(str(tmp_path), started, done))
    child.start()
    real_link = unpacked.link_file

    def link_slowly(src, dst):
        real_link(src, dst)
        if not started.is_set():
            started.set()
            assert done.get(timeout=10) == []  # the other worker's eviction skipped it

    monkeypatch.setattr(unpacked, "link_file", link_slowly)
    code = tmp_path / "code"
    code.mkdir()
    unpacked.link_entry(found, code)
    child.join(10)
    assert child.exitcode == 0 and tree(code) == FILES and found.files.exists()


def test_an_entry_removed_while_being_linked_is_linked_again_never_partly(tmp_path, monkeypatch, armada):
    armada(unpack_cache_dir=str(tmp_path / "cache"))
    opened: list[int] = []
    real_link = unpacked.link_file
    cleared: list[bool] = []

    def link_then_clear(src, dst):
        real_link(src, dst)
        if not cleared:  # cleared by hand (no lock) after the first file was linked
            cleared.append(True)
            unpacked._remove(tmp_path / "cache" / source().sha256)

    monkeypatch.setattr(unpacked, "link_file", link_then_clear)
    code = tmp_path / "code"
    code.mkdir()
    assert runner.place_code(seat=1, source=source(opened=opened), code_dir=code)
    assert tree(code) == FILES and len(opened) == 2  # unpacked again and linked whole


def test_a_linked_entry_that_does_not_match_its_meta_is_entry_gone_and_dropped(tmp_path):
    found = unpacked.entry(source=source(), root=tmp_path, limit=1 << 30)
    os.chmod(found.files / "weights", 0o755)
    (found.files / "weights" / "model.bin").unlink()  # damaged in place, meta.json still there
    code = tmp_path / "code"
    code.mkdir()
    with pytest.raises(unpacked.EntryGone, match="linked 1 files"):
        unpacked.link_entry(found, code)
    assert unpacked.lookup(tmp_path, found.sha256) is None  # dropped: the next lookup unpacks it again
    assert [p.name for p in tmp_path.iterdir()] == ["code"]
    with pytest.raises(unpacked.EntryGone):  # found before it was dropped: its name is gone
        unpacked.link_entry(found, code)


def test_a_damaged_entry_is_unpacked_again_for_the_next_attempt(tmp_path, armada):
    """A file of an entry deleted (a cleaner of the temporary folder, a disk error): the match
    links the entry afresh instead of giving every match of the version back until eviction."""
    armada(unpack_cache_dir=str(tmp_path / "cache"))
    opened: list[int] = []
    found = unpacked.entry(source=source(opened=opened))
    os.chmod(found.files / "weights", 0o755)
    (found.files / "weights" / "model.bin").unlink()
    for match in range(2):
        code = tmp_path / f"code{match}"
        code.mkdir()
        assert runner.place_code(seat=1, source=source(opened=opened), code_dir=code) is (match == 0)
        assert tree(code) == FILES
    assert len(opened) == 2  # unpacked once more, then found


def test_an_entry_that_keeps_going_while_linked_gives_the_game_back(tmp_path, monkeypatch, armada):
    armada(unpack_cache_dir=str(tmp_path / "cache"))

    def always_gone(found, target):
        (target / "main.py").write_text("partial")
        raise unpacked.EntryGone(errno.ENOENT, "the cached entry went", str(found.files))

    monkeypatch.setattr(unpacked, "link_entry", always_gone)
    code = tmp_path / "code"
    code.mkdir()
    with pytest.raises(runner.CodeUnavailable, match=f"went {runner.LINK_ATTEMPTS} times") as caught:
        runner.place_code(seat=2, source=source(), code_dir=code)
    assert isinstance(caught.value, runner.SandboxFailure) and list(code.iterdir()) == []


def _squatted(folder: Path) -> Path:
    """`folder` made first by another local user (nobody, 65534), open to all, as in a shared /tmp."""
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    os.chown(folder, 65534, 65534)
    return folder


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_cache_root_another_user_made_first_is_refused_naming_its_owner(tmp_path, armada):
    root = _squatted(tmp_path / "armada-versions")
    with pytest.raises(PermissionError, match=r"refusing to use .*armada-versions: it is owned by uid 65534 .*"
                                              r"ARMADA_UNPACK_CACHE_DIR") as caught:
        unpacked.entry(source=source(), root=root, limit=1 << 30)
    assert isinstance(caught.value, FolderNotPrivate) and list(root.iterdir()) == []
    armada(unpack_cache_dir=str(root))
    with pytest.raises(runner.PlatformFailure, match="owned by uid 65534"):
        runner.place_code(seat=1, source=source(), code_dir=tmp_path)


def test_a_cache_root_that_is_a_symbolic_link_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "armada-versions").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(FolderNotPrivate, match="it is a symbolic link"):
        unpacked.entry(source=source(), root=tmp_path / "armada-versions", limit=1 << 30)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_an_own_cache_root_open_to_all_is_made_traverse_only(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o777)
    os.chmod(root, 0o777)
    unpacked.entry(source=source(), root=root, limit=1 << 30)
    assert oct(root.stat().st_mode & 0o777) == "0o711"
