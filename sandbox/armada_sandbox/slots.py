"""Sandbox slots: a host-wide pool; each slot owns a uid and a CPU set (docs/sandbox.md, "Slots").

Slot `n` runs its bot as uid:gid `SLOT_UID_BASE + n` (a range no other slot and no host user
uses), so per-user kernel limits (processes, inotify instances, pending signals, message
queue bytes) are per container, and on CPU `n % cores` (one core per running bot while no
more bots than cores run at once: slots are taken lowest first). A slot is held with
`fcntl.flock` on its own lock file, so the pool is safe across worker processes (also worker
containers of another uid that mount the same folder) and a slot whose owner dies is free
again at once (the kernel drops the lock with the descriptor).

The first pair of slots (0 and 1) is kept for validation games (`purpose="validation"`),
so a busy ladder never makes a new upload wait; validation may use the other slots too.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: uid (and gid) of slot 0; slot n uses SLOT_UID_BASE + n.
SLOT_UID_BASE = 20000
#: uid of slot 0's network anchor (warm.py); slot n's anchor runs as ANCHOR_UID_BASE + n, so
#: its processes never count against its bots' per-uid limits.
ANCHOR_UID_BASE = 30000
#: Where the lock files live (host-wide); ARMADA_SANDBOX_SLOT_DIR overrides it.
SLOT_DIR_VARIABLE = "ARMADA_SANDBOX_SLOT_DIR"
#: Slots per core: more bots than cores may run (tests, local runs) and then share cores.
SLOTS_PER_CORE = 8
#: Slots kept for validation games (one pair: a validation game has two seats).
VALIDATION_SLOTS = 2
#: What a slot is wanted for: validation games may use the kept pair, everything else may not.
PURPOSES = ("match", "validation")


class SlotsBusy(RuntimeError):
    """Every slot of the pool stayed taken until the timeout."""


@dataclass(frozen=True)
class Slot:
    """One slot: its number, the uid:gid its bot runs as, the CPU set it runs on."""

    index: int
    uid: int
    cpuset: str

    @property
    def user(self) -> str:
        """Docker's `user` option: "uid:gid"."""
        return f"{self.uid}:{self.uid}"


class Lease:
    """A slot held by this process until `release()` (or until the process ends)."""

    def __init__(self, slot: Slot, fd: int, lock_dir: Path) -> None:
        self.slot = slot
        self.lock_dir = lock_dir
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Free the slot (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def host_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity), sorted."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


def default_dir() -> Path:
    return Path(os.environ.get(SLOT_DIR_VARIABLE) or Path(tempfile.gettempdir()) / "armada-slots")


class SlotPool:
    """The host's slots: `size` of them over `cpus` (defaults: SLOTS_PER_CORE per usable CPU)."""

    def __init__(self, size: int | None = None, cpus: list[int] | None = None,
                 lock_dir: str | os.PathLike[str] | None = None) -> None:
        self.cpus = list(cpus) if cpus else host_cpus()
        self.size = size if size is not None else SLOTS_PER_CORE * len(self.cpus)
        if self.size < 1:
            raise ValueError("a slot pool needs at least one slot")
        self.lock_dir = Path(lock_dir) if lock_dir is not None else default_dir()

    def slot(self, index: int) -> Slot:
        return Slot(index, SLOT_UID_BASE + index, str(self.cpus[index % len(self.cpus)]))

    def reserved(self) -> int:
        """How many of the lowest slots are kept for validation (none in a pool too small to spare them)."""
        return VALIDATION_SLOTS if self.size > 2 * VALIDATION_SLOTS else 0

    def candidates(self, purpose: str = "match") -> range:
        """The slot numbers `purpose` may take, lowest first."""
        if purpose not in PURPOSES:
            raise ValueError(f"unknown slot purpose {purpose!r}; expected one of {', '.join(PURPOSES)}")
        return range(0 if purpose == "validation" else self.reserved(), self.size)

    def try_acquire(self, cpu: int | None = None, purpose: str = "match") -> Lease | None:
        """The lowest free slot `purpose` may take (on CPU `cpu` if given), or None when all are taken."""
        for index in self.candidates(purpose):
            if cpu is not None and self.slot(index).cpuset != str(cpu):
                continue
            lease = self.try_slot(index)
            if lease is not None:
                return lease
        return None

    def try_slot(self, index: int) -> Lease | None:
        """Slot `index` if it is free (nobody holds its lock), else None."""
        self._ensure_dir()
        fd = open_lock_file(self.lock_dir / f"slot-{index}.lock")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        return Lease(self.slot(index), fd, self.lock_dir)

    def acquire(self, timeout: float = 60.0, cpu: int | None = None, purpose: str = "match") -> Lease:
        """The lowest free slot `purpose` may take, waiting up to `timeout` seconds; raises SlotsBusy."""
        deadline = time.monotonic() + timeout
        while True:
            lease = self.try_acquire(cpu, purpose)
            if lease is not None:
                return lease
            if time.monotonic() >= deadline:
                raise SlotsBusy(f"all {len(self.candidates(purpose))} sandbox slots for {purpose} games "
                                f"stayed taken for {timeout:.0f} s")
            time.sleep(0.05)

    def _ensure_dir(self) -> None:
        if not self.lock_dir.is_dir():
            self.lock_dir.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # every worker user may lock (sticky: none removes another's)
                os.chmod(self.lock_dir, 0o1777)  # noqa: S103


def open_lock_file(path: Path) -> int:
    """A read-only descriptor of the lock file `path`, made if missing (flock needs no write access).

    Any worker user may lock a file another one made (the lock folder is shared by the host's
    workers and by worker containers running as another uid): reading is enough, and an existing
    file is opened without O_CREAT, which the kernel refuses for another user's file in a sticky
    folder (fs.protected_regular)."""
    for _ in range(3):
        try:
            return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            pass
        try:
            return os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:  # made meanwhile by another process: open that one
            continue
    return os.open(path, os.O_RDONLY | os.O_CLOEXEC)


_pool: SlotPool | None = None


def default_pool() -> SlotPool:
    """The process's pool over the host's CPUs and the shared lock folder."""
    global _pool
    if _pool is None:
        _pool = SlotPool()
    return _pool
