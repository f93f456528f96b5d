"""Host side of the FIFO transport: a private directory of three named pipes per container.

The container's command redirects the bot's stdin/stdout/stderr to /io/stdin, /io/stdout and
/io/stderr, which are these FIFOs bind-mounted read-only (a FIFO stays writable on a
read-only mount: writing to it changes no file). Bytes then go through the kernel's pipe
buffers exactly as with a local subprocess: no Docker API on the data path.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

NAMES = ("stdin", "stdout", "stderr")


class FifoDir:
    """Creates the FIFOs, opens the host ends, and removes everything on `remove()`.

    By default a new private folder in the temp dir (an opaque name: nothing of the bot or
    the match); `directory` names a folder to create instead (a warm slot's); `names` adds
    FIFOs beyond the three streams (a warm container's `go`).
    """

    def __init__(self, prefix: str = "armada-io-", *, directory: Path | None = None,
                 names: tuple[str, ...] = NAMES) -> None:
        if directory is None:
            self.path = Path(tempfile.mkdtemp(prefix=prefix))
        else:
            self.path = Path(directory)
            self.path.mkdir(mode=0o700)
        self.names = names
        # The bot's uid (another one) may traverse but not list or create; the FIFOs are 0666.
        os.chmod(self.path, 0o711)  # noqa: S103 (traverse only, no listing)
        for name in names:
            fifo = self.path / name
            os.mkfifo(fifo)
            os.chmod(fifo, 0o666)  # noqa: S103 (the bot runs as another uid)

    def fifo(self, name: str) -> str:
        return str(self.path / name)

    def open_writer(self, name: str, deadline: float, alive: object = None) -> int:
        """Open FIFO `name` for writing once the container has it open for reading.

        Polls (non-blocking open fails with ENXIO until a reader exists) so it can give up at
        `deadline` or when `alive()` turns false. Returns a blocking descriptor.
        """
        path = self.fifo(name)
        delay = 0.0005
        while True:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError as exc:
                if exc.errno != errno.ENXIO:
                    raise
            else:
                os.set_blocking(fd, True)
                return fd
            if time.monotonic() >= deadline:
                raise TimeoutError(f"the bot did not open its {name} in time")
            if callable(alive) and not alive():
                raise BrokenPipeError(f"the container ended before opening its {name}")
            time.sleep(delay)
            delay = min(delay * 2, 0.01)

    def open_reader(self, name: str) -> int:
        """Open FIFO `name` for reading; blocks until a writer opens it (or `release_reader`)."""
        return os.open(self.fifo(name), os.O_RDONLY | os.O_CLOEXEC)

    def release_reader(self, name: str) -> None:
        """Unblock a thread stuck in `open_reader(name)` by briefly opening the write end."""
        try:
            fd = os.open(self.fifo(name), os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return  # no reader waiting (ENXIO) or already removed
        os.close(fd)

    def remove(self) -> None:
        """Delete the directory and its FIFOs (only FIFOs are expected in it)."""
        for name in self.names:
            path = self.path / name
            try:
                if stat.S_ISFIFO(os.lstat(path).st_mode):
                    path.unlink()
            except FileNotFoundError:
                pass
        shutil.rmtree(self.path, ignore_errors=True)
