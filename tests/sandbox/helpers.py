"""Host-side checks used by the sandbox tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def host_processes_of(container_id: str) -> list[int]:
    """Pids of host processes whose cgroup belongs to the container (empty once it is gone)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cgroup = (entry / "cgroup").read_text()
        except OSError:
            continue
        if container_id in cgroup:
            pids.append(int(entry.name))
    return pids


def host_processes_of_uid(uid: int) -> list[int]:
    """Pids of host processes running as `uid` (the bot user)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.stat(entry).st_uid == uid:
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def containers_with(client: Any, labels: dict[str, str]) -> list[Any]:
    """All containers (running or not) carrying every given label."""
    filters = {"label": [f"{key}={value}" for key, value in labels.items()]}
    # ignore_removed: one removed between the listing and its inspection (another test's) is left out
    return client.containers.list(all=True, filters=filters, ignore_removed=True)


def container_exists(client: Any, container_id: str) -> bool:
    from docker.errors import NotFound

    try:
        client.containers.get(container_id)
    except NotFound:
        return False
    return True
