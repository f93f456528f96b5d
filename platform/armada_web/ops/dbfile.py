"""The SQLite database file is its owner's alone (mode 0600): it holds sessions, password hashes and
token digests. Set as each connection opens, so a file any command creates (`manage.py restore` into a
new data folder, `migrate` before the first `make up`) is never left readable by others (an
organiser's trial found a restored database at 0644 until the next `make up`). Its -wal and -shm
files take its mode."""

from __future__ import annotations

import contextlib
import os
import stat
from typing import Any


def owner_only(sender: Any, connection: Any, **_: Any) -> None:
    """`connection_created` receiver: the SQLite file made 0600 when others may read it."""
    if connection.vendor != "sqlite":
        return
    name = str(connection.settings_dict.get("NAME") or "")
    if not name or name == ":memory:" or name.startswith("file:"):
        return
    with contextlib.suppress(OSError):  # (not the owner: the deployment's own layout says who reads it)
        if stat.S_IMODE(os.stat(name).st_mode) & 0o077:
            os.chmod(name, 0o600)
