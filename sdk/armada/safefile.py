"""Write a file whole or not at all: a failed write (disk full, no permission) never leaves a
truncated file behind, nor destroys the file that was there before."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_bytes_atomic(path: str | Path, data: bytes, *, sync: bool = False) -> None:
    """Write `data` to a hidden file beside `path`, then rename it into place.

    The new file gets the mode of the file it replaces, else what the umask allows (as
    `open()` would). A path that is not a regular file (`/dev/null`, a named pipe) is written
    in place: renaming over it would replace the device. OSError when it cannot be written;
    then nothing has changed at `path`. `sync`: on disk before the rename (a download kept
    across a power cut is whole).
    """
    target = Path(path)
    try:
        info = target.stat()  # follows a symbolic link: its target is the file replaced
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        target.write_bytes(data)
        return
    if target.is_symlink():
        target = target.resolve()
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fchmod(out.fileno(), mode)
            if sync:
                os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux's
    /proc/self/status): setting it to read it back would, for a moment, let another thread
    create files open to everyone."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o077)  # elsewhere: set it to a strict one while reading it back
    os.umask(umask)
    return umask
