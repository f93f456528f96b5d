"""A worker host's cache of unpacked versions: each stored archive is unpacked once per host, not
once per match (docs/operations.md, "The cache of unpacked versions").

Content-addressed: `<root>/<sha256>/files/` holds the archive's files (read-only: files 0444,
folders 0555) and `<root>/<sha256>/meta.json` its size; an entry is complete exactly when its
`meta.json` is there. A miss copies the archive (from storage, in chunks, checking its sha256)
and unpacks it into `<root>/.tmp-<random>/`, writes `meta.json` last, then renames the folder
into place: two workers unpacking the same version at once both finish and one rename wins (the
other's copy is dropped); a worker killed mid-unpack leaves only a `.tmp-` folder, never used and
removed once it is `STALE_S` old; a folder under an entry's name without `meta.json` is torn and
replaced. The copy's sha256 must be the version's recorded one (a truncated or replaced object is
a SourceError, never played as the version). Each use touches `meta.json` (least recently used =
oldest); past ARMADA_UNPACK_CACHE_MB the oldest entries are renamed aside (`.trash-`) and
deleted. A match links an entry's files into its own code folder (hard links: no copy,
`link_entry`), so removing an entry never pulls files from under a running bot. Linking holds a
shared lock on the entry's folder (flock) and removal takes it exclusively without waiting (an
entry being linked is skipped), and the linked files are checked against `meta.json` afterwards:
an entry removed while being linked is `EntryGone`, never a partial code folder. A full disk
empties the cache of everything else and tries once more, then raises `CacheFull` (the
platform's problem: the match is given back). The root must be this process's own (default
`$TMPDIR/armada-versions`, in a folder every local user writes): a symbolic link, another user's
folder or one others may write is refused (`FolderNotPrivate`, naming the folder and its owner).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.conf import settings

from armada_sandbox import private_folder
from armada_web.storage.archives import CHUNK, unpack

#: An entry's name: the archive's sha256.
ENTRY_NAME = re.compile(r"[0-9a-f]{64}")
#: What marks an entry complete (written last, before the rename), and its last use (mtime).
META = "meta.json"
#: Seconds after which a `.tmp-` or `.trash-` folder is a dead worker's and is removed.
STALE_S = 600.0
#: Errors of a full disk (or quota).
FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


class SourceError(OSError):
    """The stored archive could not be read (storage down, object missing): not the cache's fault."""


class EntryGone(FileNotFoundError):
    """The entry was removed or changed (another worker's eviction, a clearing by hand) while it was
    being linked: the code folder is incomplete; clear it and look the entry up again."""


class CacheFull(OSError):
    """No room to unpack a version even with the rest of the cache removed."""


@dataclass(frozen=True)
class Source:
    """A stored archive: its sha256 and how to open it (a binary file, closed by the reader)."""

    sha256: str
    open: Callable[[], IO[bytes]]

    @classmethod
    def of_bytes(cls, data: bytes) -> Source:
        """An archive already in memory (a starter bot, tests)."""
        return cls(hashlib.sha256(data).hexdigest(), lambda: io.BytesIO(data))


@dataclass(frozen=True)
class Entry:
    """A complete entry: its files' folder, its sha256, its size, and whether this call unpacked it."""

    files: Path
    sha256: str
    size: int
    fresh: bool


def cache_root() -> Path:
    """The cache's folder (ARMADA_UNPACK_CACHE_DIR, else `armada-versions` in the temporary folder,
    beside the sandbox's work folders so that hard links reach them); traverse-only for others."""
    configured = settings.ARMADA.unpack_cache_dir
    return _made(Path(configured) if configured else Path(tempfile.gettempdir()) / "armada-versions")


def _made(root: Path) -> Path:
    """`root` made, or checked to be this process's own (FolderNotPrivate otherwise); traverse only:
    the bots' uids read their own entry's files."""
    return private_folder(root, mode=0o711, parents=True,
                          hint="set ARMADA_UNPACK_CACHE_DIR to a folder of this user's")


def max_bytes() -> int:
    return int(settings.ARMADA.unpack_cache_mb) * 1024 * 1024


def entry(*, source: Source, root: Path | None = None, limit: int | None = None) -> Entry:
    """The unpacked files of `source`, unpacked into the cache on a miss (see the module). Raises
    SourceError (reading the archive), CacheFull (no room), BotSpecError or OSError (the archive)."""
    root = cache_root() if root is None else _made(root)
    limit = max_bytes() if limit is None else limit
    found = lookup(root, source.sha256)
    if found is not None:
        return found
    try:
        made = _fill(root, source)
    except OSError as exc:
        if exc.errno not in FULL or isinstance(exc, SourceError):
            raise
        evict(root, limit=0, keep=())  # everything else goes; then once more
        try:
            made = _fill(root, source)
        except OSError as again:
            if again.errno in FULL and not isinstance(again, SourceError):
                raise CacheFull(again.errno, f"no room to unpack version {source.sha256[:12]} in {root} "
                                f"({again.strerror})") from None
            raise
    evict(root, limit=limit, keep=(made.sha256,))
    return made


def lookup(root: Path, sha256: str) -> Entry | None:
    """The complete entry `sha256` (touched: used now), or None; a torn folder under its name is
    moved aside."""
    if not ENTRY_NAME.fullmatch(sha256):
        return None
    folder = root / sha256
    try:
        meta = json.loads((folder / META).read_text())
        os.utime(folder / META)
        return Entry(folder / "files", sha256, int(meta["bytes"]), fresh=False)
    except FileNotFoundError:
        if folder.exists():
            _discard(root, folder)  # torn: named like an entry, never completed
        return None
    except (OSError, ValueError, KeyError, TypeError):
        _discard(root, folder)
        return None


def _fill(root: Path, source: Source) -> Entry:
    """Copy, check and unpack `source` beside the cache, then rename it into place."""
    work = root / f".tmp-{uuid.uuid4().hex}"
    work.mkdir(mode=0o700)
    try:
        archive = work / "archive.zip"
        sha256 = _copy(source, archive)
        if ENTRY_NAME.fullmatch(source.sha256) and sha256 != source.sha256:
            raise SourceError(f"the stored archive of version {source.sha256[:12]} has sha256 {sha256[:12]}: "
                              "truncated or replaced in storage")
        files = work / "files"
        files.mkdir()
        with open(archive, "rb") as handle:
            size = unpack(archive=handle, dest=str(files), mode=0o444)
        archive.unlink()
        count, _bytes = measure(files)
        (work / META).write_text(json.dumps({"bytes": size, "files": count, "unpacked": time.time()}))
        for folder, _dirs, _names in os.walk(files, onerror=_raise):
            os.chmod(folder, 0o555)  # noqa: S103 (read-only: no worker writes into an entry)
        os.chmod(work, 0o711)  # noqa: S103
        final = root / sha256
        try:
            os.rename(work, final)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            _remove(work)  # another worker's rename won: theirs is the same files
            found = lookup(root, sha256)
            if found is None:
                raise
            return found
        return Entry(final / "files", sha256, size, fresh=True)
    except BaseException:
        _remove(work)
        raise


def _copy(source: Source, target: Path) -> str:
    """Copy the archive into `target` in chunks; returns its sha256 (the real one: what the entry is
    named after). Errors of the storage are SourceError."""
    digest = hashlib.sha256()
    try:
        handle = source.open()
    except OSError as exc:
        raise SourceError(f"{exc.__class__.__name__}: {exc}") from None
    with handle, open(target, "xb") as out:
        while True:
            try:
                chunk = handle.read(CHUNK)
            except OSError as exc:
                raise SourceError(f"{exc.__class__.__name__}: {exc}") from None
            if not chunk:
                break
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def entries(root: Path) -> list[tuple[float, int, Path]]:
    """The complete entries: (last use, size, folder), least recently used first."""
    found = []
    for folder in root.iterdir() if root.is_dir() else []:
        if not ENTRY_NAME.fullmatch(folder.name):
            continue
        try:
            meta_path = folder / META
            found.append((meta_path.stat().st_mtime, int(json.loads(meta_path.read_text())["bytes"]), folder))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(found)


def evict(root: Path, *, limit: int, keep: Iterable[str] = ()) -> list[str]:
    """Remove the least recently used entries (but `keep`) until the cache holds at most `limit`
    bytes, and dead workers' leftovers; returns the sha256 of the entries removed."""
    kept = set(keep)
    listed = entries(root)
    total = sum(size for _used, size, _folder in listed)
    removed = []
    for _used, size, folder in listed:
        if total <= limit:
            break
        if folder.name in kept:
            continue
        if _discard(root, folder):  # (an entry being linked stays: the next one goes instead)
            removed.append(folder.name)
            total -= size
    _sweep(root)
    return removed


def _discard(root: Path, folder: Path) -> bool:
    """Rename `folder` aside (atomic: nobody finds it by its name any more), then delete it, holding
    its exclusive lock (taken without waiting: a folder being linked is left alone, False)."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False  # another worker moved it first
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a match is linking its files: removed another time
        if not _same(handle, folder):
            return False  # moved (and perhaps replaced) meanwhile
        trash = root / f".trash-{uuid.uuid4().hex}"
        try:
            os.rename(folder, trash)
        except OSError:
            return False
        _remove(trash)  # still locked: a linker waiting for it then finds its name gone
        return True
    finally:
        os.close(handle)


def _same(handle: int, folder: Path) -> bool:
    """Whether the open folder `handle` is still the one named `folder`."""
    try:
        named = os.stat(folder)
    except OSError:
        return False
    held = os.fstat(handle)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


@contextlib.contextmanager
def _shared(folder: Path) -> Iterator[None]:
    """A shared lock on the entry `folder` (waits while an eviction removes it), checked to be still
    the entry of that name with its `meta.json`; EntryGone otherwise."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        raise EntryGone(errno.ENOENT, "the cached entry was removed", str(folder)) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_SH)
        if not _same(handle, folder) or not (folder / META).is_file():
            raise EntryGone(errno.ENOENT, "the cached entry was removed while being opened", str(folder))
        yield
    finally:
        os.close(handle)  # (releases the lock)


def _sweep(root: Path) -> None:
    """Remove `.tmp-` and `.trash-` folders older than STALE_S (their worker died)."""
    now = time.time()
    for folder in root.iterdir():
        if folder.name.startswith((".tmp-", ".trash-")):
            with contextlib.suppress(OSError):
                if now - folder.stat().st_mtime > STALE_S:
                    _remove(folder)


def _remove(folder: Path) -> None:
    """Delete a folder of the cache, read-only folders included."""
    for path, _dirs, _names in os.walk(folder):
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
    shutil.rmtree(folder, ignore_errors=True)


def link_entry(found: Entry, target: Path) -> None:
    """Put the entry's files into the existing, empty folder `target` (`link_tree`) under the
    entry's shared lock, then check that what was linked is the whole entry (its `meta.json`'s
    file count and bytes): EntryGone when the entry went or changed meanwhile (the caller clears
    `target` and looks the entry up again); an entry whose files do not match is discarded first,
    so that lookup unpacks it afresh."""
    folder = found.files.parent
    damaged: EntryGone | None = None
    with _shared(folder):
        try:
            meta = json.loads((folder / META).read_text())
            link_tree(found.files, target)
        except FileNotFoundError as exc:
            damaged = EntryGone(errno.ENOENT, f"the cached entry went while being linked ({exc})", str(folder))
        except ValueError:
            damaged = EntryGone(errno.ENOENT, "the cached entry's meta.json is unreadable", str(folder))
        else:
            count, size = measure(target)
            if size != meta.get("bytes") or count != meta.get("files", count):
                damaged = EntryGone(errno.ENOENT, f"linked {count} files, {size} bytes of the cached entry; it "
                                    f"holds {meta.get('files', '?')} files, {meta.get('bytes')} bytes", str(folder))
    if damaged is not None:
        # Changed under its lock (nobody evicts a locked entry): damaged in place (a cleaner of the
        # temporary folder, a disk error). Dropped, so the next lookup unpacks it again.
        _discard(folder.parent, folder)
        raise damaged


def measure(folder: Path) -> tuple[int, int]:
    """(files, bytes) under `folder`; FileNotFoundError when part of it goes meanwhile."""
    count = size = 0
    for path, _dirs, names in os.walk(folder, onerror=_raise):
        for name in names:
            size += os.lstat(os.path.join(path, name)).st_size
            count += 1
    return count, size


def _raise(exc: OSError) -> None:
    raise exc


def link_tree(source: Path, target: Path) -> None:
    """Put `source`'s files into the existing folder `target` as hard links (a copy across file
    systems): a match's code folder, mounted read-only into its container. Any error (`source`
    gone or going) is raised, never a partial tree in silence."""
    for folder, dirs, names in os.walk(source, onerror=_raise):
        here = Path(target, os.path.relpath(folder, source))
        for name in dirs:
            (here / name).mkdir(mode=0o755)
            os.chmod(here / name, 0o755)  # noqa: S103 (the bot's uid reads its code)
        for name in names:
            link_file(Path(folder, name), here / name)


def link_file(source: Path, target: Path) -> None:
    """A hard link of `source` at `target`, or a copy (mode 0444) where a link cannot be made."""
    try:
        os.link(source, target)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.EACCES):
            raise
        shutil.copyfile(source, target)
        os.chmod(target, 0o444)
