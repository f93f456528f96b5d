"""A bot container's memory peak, read from its cgroup (docs/sandbox.md, "Memory").

The kernel keeps the highest memory a cgroup ever used: `memory.peak` (cgroup v2) or
`memory.max_usage_in_bytes` (cgroup v1). The container's cgroup goes when its last process
ends, so `PeakReader` reads it while the bot runs (`DockerBot` samples after every reply and
before stopping the container) and keeps the highest value seen. Where the worker cannot see
the host's cgroups (no such file), the peak is unknown (None): never a guess.

The same folder counts the container's processes any out-of-memory killer stopped (`oom_kill`
in `memory.events`, v2, or `memory.oom_control`, v1; Linux 4.13+): its own limit's, or the
kernel's when the whole machine ran short of memory, which picks bots first (`oom_score_adj`
1000) however little they use. Docker's `OOMKilled` tells only the first; `oom_kills()`, read when
the bot's output ends (its cgroup is still there), tells the second apart (docs/sandbox.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

#: Where cgroup file systems are mounted (ARMADA_SANDBOX_CGROUP_ROOT overrides it, e.g. a worker
#: container that mounts the host's /sys/fs/cgroup elsewhere).
CGROUP_ROOT_VARIABLE = "ARMADA_SANDBOX_CGROUP_ROOT"
MIB = 1024 * 1024


def candidates(container_id: str, root: Path | None = None) -> Iterator[Path]:
    """The files that may hold the container's peak: v2 then v1, cgroupfs then systemd driver, under
    Docker's default parents, then under any other parent of one level (an engine started with
    `--cgroup-parent /armada-NAME`, as infra/dockerd-second.sh does: a trial's second worker host
    measured no peak). Lazily: the other parents are listed only when Docker's hold none."""
    base = root or Path(os.environ.get(CGROUP_ROOT_VARIABLE) or "/sys/fs/cgroup")
    names = (container_id, f"docker-{container_id}.scope")
    known = [
        base / "docker" / container_id / "memory.peak",
        base / "system.slice" / f"docker-{container_id}.scope" / "memory.peak",
        base / "memory" / "docker" / container_id / "memory.max_usage_in_bytes",
        base / "memory" / "system.slice" / f"docker-{container_id}.scope" / "memory.max_usage_in_bytes",
    ]
    yield from known
    layouts = ((base, "memory.peak"), (base / "memory", "memory.max_usage_in_bytes"))  # v2, v1
    for folder, file in layouts:
        for parent in _folders(folder):
            yield from (path for name in names if (path := parent / name / file) not in known)


def _folders(folder: Path) -> list[Path]:
    """The folders in `folder` (sorted; none when it cannot be read)."""
    try:
        return sorted(path for path in folder.iterdir() if path.is_dir())
    except OSError:
        return []


#: The file beside each peak file that counts the cgroup's out-of-memory kills.
OOM_FILES = {"memory.peak": "memory.events", "memory.max_usage_in_bytes": "memory.oom_control"}


def read_bytes(path: Path) -> int | None:
    """The number in `path`, or None when it cannot be read."""
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class PeakReader:
    """The highest memory use seen of one container; `sample()` is cheap (one small file read)."""

    def __init__(self, container_id: str, root: Path | None = None) -> None:
        self.container_id = container_id
        self._root = root
        self._path: Path | None = None
        self._searched = False
        self.peak_bytes: int | None = None

    def _find(self) -> Path | None:
        if not self._searched:
            self._searched = True
            self._path = next((p for p in candidates(self.container_id, self._root) if p.is_file()), None)
        return self._path

    def sample(self) -> int | None:
        """Read the cgroup's peak now (while the container runs) and keep the highest; returns it."""
        path = self._find()
        if path is None:
            return self.peak_bytes
        value = read_bytes(path)
        if value is not None and (self.peak_bytes is None or value > self.peak_bytes):
            self.peak_bytes = value
        return self.peak_bytes


    def oom_kills(self) -> int | None:
        """How many of the container's processes an out-of-memory killer stopped (its limit's or the
        machine's); None when its cgroup cannot be read (gone, or not visible to this worker)."""
        path = self._find()
        if path is None:
            return None
        try:
            for line in (path.parent / OOM_FILES[path.name]).read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            return None
        return None


def to_mib(value: int | None) -> int | None:
    """Bytes as whole MiB, rounded up (None stays None)."""
    return None if value is None else -(-value // MIB)
