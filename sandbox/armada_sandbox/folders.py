"""Work folders on the host: what a bot's container mounts (its code, its FIFOs), each marked with
the process it belongs to, so that none outlives its process.

Every folder is `<root>/<random>/` (`sandbox_root()`, traverse-only for the bots' uids) with a
file `holder` that names the holder file of the process that made it (`slots.holder()`); what a
container mounts is inside (`code/`, `io/`), so a bot sees neither the marker nor anything of the
bot, its owner or the match in its mounts' host paths. A process that ends normally removes its
folders; `sweep_folders()` removes those of a process that died (killed mid-match), at once.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from armada_sandbox.slots import holder, holder_alive, remove_dead_holders

#: The marker file of a work folder: the path of its process's holder file.
MARK = "holder"


class FolderNotPrivate(PermissionError):
    """A folder this process keeps its files in is a symbolic link, another user's, or writable by
    others (another local user made it first in the shared temporary folder): never used."""


def sandbox_root() -> Path:
    """The host folder of the work folders (traverse only for the bots' uids)."""
    return private_folder(Path(tempfile.gettempdir()) / "armada-sandbox", mode=0o711,
                          hint="set TMPDIR to a folder of this user's")


def private_folder(root: Path, *, mode: int, hint: str, parents: bool = False) -> Path:
    """Make folder `root` with `mode` (at most 0755), or take it when it is there already and this
    process's own: a real folder (not a symbolic link), owned by the effective uid, writable by
    nobody else once set to `mode`. FolderNotPrivate says otherwise what was found and `hint`."""
    def refuse(why: str) -> FolderNotPrivate:
        return FolderNotPrivate(f"refusing to use {root}: {why}; another local user may have made it first: "
                                f"remove it (as root) or {hint}")

    with contextlib.suppress(FileExistsError):  # a file, or a link to nothing: said below
        root.mkdir(mode=mode, parents=parents, exist_ok=True)
    found = os.lstat(root)
    euid = os.geteuid()

    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode):
        raise refuse("it is a symbolic link" if stat.S_ISLNK(found.st_mode) else "it is not a folder")
    if found.st_uid != euid:
        raise refuse(f"it is owned by uid {found.st_uid} ({_user(found.st_uid)}), not by this process's "
                     f"uid {euid} ({_user(euid)})")
    handle = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        held = os.fstat(handle)
        if (held.st_dev, held.st_ino) != (found.st_dev, found.st_ino) or held.st_uid != euid:
            raise refuse("it was replaced while being checked")
        with contextlib.suppress(OSError):
            os.fchmod(handle, mode)
        if os.fstat(handle).st_mode & 0o022:
            raise refuse(f"it is writable by others (mode {stat.S_IMODE(os.fstat(handle).st_mode):o})")
    finally:
        os.close(handle)
    return root


def _user(uid: int) -> str:
    """The name of user `uid`, or `unknown`."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return "unknown"


def work_folder(lock_dir: Path | None = None) -> Path:
    """A new folder `<root>/<random>/` (0711) marked as this process's (its holder in `lock_dir`)."""
    folder = Path(tempfile.mkdtemp(prefix="", dir=sandbox_root()))
    os.chmod(folder, 0o711)  # noqa: S103 (traverse only)
    (folder / MARK).write_text(str(holder(lock_dir).path))
    return folder


@contextlib.contextmanager
def code_folder(lock_dir: Path | None = None) -> Iterator[Path]:
    """A folder for one bot's code (0755, empty), removed on leaving the block; its work folder is
    marked as this process's, so the sweeper removes it if the process dies before that."""
    folder = work_folder(lock_dir)
    code = folder / "code"
    code.mkdir(mode=0o755)
    os.chmod(code, 0o755)  # noqa: S103 (the bot's uid reads its code)
    try:
        yield code
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def folder_owner_alive(folder: Path) -> bool | None:
    """Does the process that made work folder `folder` live? None when it cannot be told (no marker yet)."""
    try:
        mark = (folder / MARK).read_text().strip()
    except OSError:
        return None
    return holder_alive(mark) if mark else None


def sweep_folders(root: Path | None = None, lock_dir: Path | None = None) -> list[Path]:
    """Remove the work folders of processes that died (then the holder files of dead processes in
    `lock_dir`, default the host's); returns the folders removed."""
    root = root or sandbox_root()
    removed = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        if folder.is_dir() and not folder.is_symlink() and folder_owner_alive(folder) is False:
            shutil.rmtree(folder, ignore_errors=True)
            if not folder.exists():
                removed.append(folder)
    remove_dead_holders(lock_dir)  # after the folders: their markers name these files
    return removed
