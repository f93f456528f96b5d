"""Where the web server keeps an upload's body while it arrives (Django's `FILE_UPLOAD_TEMP_DIR`),
and the sweep of what a killed web worker left there.

Django deletes an upload's temporary file when the request ends; a worker killed mid-upload (out
of memory, an operator's kill) leaves it, up to the largest version's size (a reliability trial
found 90 MB files in /tmp after two restarts). The files go to a folder of the site's data folder
(`uploads-tmp`: not a predictable name in the shared /tmp, which another local user could make
first or point elsewhere, a review), which the web server's master sweeps (`sweep`,
infra/gunicorn.conf.py). Pure: no Django.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

#: Seconds since a file's last write after which no upload still writes it: a slower body has
#: been cut off by the web server's timeout long before.
STALE_S = 3600


def folder(data_dir: Path) -> Path:
    """The folder in the site's data folder, made when missing (mode 0700: uploads are the
    competitors' code)."""
    path = data_dir / "uploads-tmp"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def sweep(path: Path, *, older_than_s: float = STALE_S, now: float | None = None) -> int:
    """Delete the files of the folder `path` last written more than `older_than_s` ago; how many."""
    limit = (time.time() if now is None else now) - older_than_s
    removed = 0
    for entry in os.scandir(path):
        with contextlib.suppress(OSError):  # (gone meanwhile: another master's sweep)
            if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < limit:
                os.unlink(entry.path)
                removed += 1
    return removed
