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

Every acquisition is a lease of its own (`Lease.id`: the holder's process, its start time and a
count), and the holding process has a **holder file** in the lock folder that it keeps locked
for its whole life (`holder()`): whoever shares the folder can tell whether the process that made
a container or a folder still lives (`holder_alive`), across pid namespaces and whatever slot
numbers its successor took. Containers and work folders carry their lease and holder, so the
sweeper removes those of a dead holder at once and the next holder of a slot removes whatever an
earlier lease of that slot left.

A process that stops (`leave()`, from `close_process_pool()` and at exit) removes its holder file
and every slot lock file nobody holds: it takes the file's lock first, so a file a live process
holds is never removed, and whoever locks a slot checks that the file it locked is still the one
in the folder (else it locks the new one), so a file removed under it never makes two holders.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import itertools
import os
import random
import secrets
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

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


T = TypeVar("T")


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


def process_start(pid: int | str = "self") -> int:
    """When process `pid` started (clock ticks since boot, /proc/PID/stat); 0 when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


#: Holder files are named HOLDER_PREFIX + the holder's name + ".lock" in the lock folder.
HOLDER_PREFIX = "holder-"
#: Slot n's lock file is SLOT_PREFIX + n + ".lock" in the lock folder.
SLOT_PREFIX = "slot-"


class Holder:
    """This process as the holder of slots and work folders: `path`, a file in the lock folder it
    keeps locked (flock) while it lives; `name` says which process (host, pid, start time)."""

    def __init__(self, lock_dir: Path) -> None:
        self.pid = os.getpid()
        self.name = f"{socket.gethostname()[:40]}-{self.pid}-{process_start()}-{secrets.token_hex(2)}"
        self.path = lock_dir / f"{HOLDER_PREFIX}{self.name}.lock"
        self._serial = itertools.count(1)
        # Made under a temporary name and locked before it gets its own, so nobody ever sees the
        # holder's file unlocked while the holder lives.
        draft = lock_dir / f".draft-{self.name}"
        self.fd = os.open(draft, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        os.rename(draft, self.path)

    def lease_id(self) -> str:
        """A new lease's id: this holder's name and a count."""
        return f"{self.name}.{next(self._serial)}"


_holders: dict[Path, Holder] = {}
#: The process whose exit removes its lock files (a forked child registers its own).
_leaving: list[int] = []


def holder(lock_dir: Path | None = None) -> Holder:
    """This process's holder file in `lock_dir` (default: the host's lock folder), made on first use.

    A child forked from a holder gets a holder of its own (the inherited descriptor is closed,
    which leaves the parent's lock alone)."""
    folder = Path(lock_dir) if lock_dir is not None else default_dir()
    ensure_lock_dir(folder)
    found = _holders.get(folder)
    if found is not None and found.pid != os.getpid():
        with contextlib.suppress(OSError):
            os.close(found.fd)  # closing one of two descriptors of a flock never unlocks it
        found = None
    if found is None:
        found = _holders[folder] = Holder(folder)
        if os.getpid() not in _leaving:
            _leaving.append(os.getpid())
            atexit.register(leave)
    return found


def leave() -> int:
    """This process stops using slots: its holder files go, then every slot lock file in their
    folders that nobody holds (never one a live process holds). How many files it removed."""
    removed = 0
    for folder, found in list(_holders.items()):
        if found.pid != os.getpid():
            continue  # a parent's, inherited by fork: the parent removes it
        del _holders[folder]
        with contextlib.suppress(OSError):
            found.path.unlink()
            removed += 1
        with contextlib.suppress(OSError):
            os.close(found.fd)
        removed += remove_free_lock_files(folder)
    return removed


def remove_free_lock_files(lock_dir: Path) -> int:
    """Delete the slot lock files in `lock_dir` that nobody holds (each locked while it is removed)
    and this user may delete; how many."""
    removed = 0
    for path in sorted(lock_dir.glob(f"{SLOT_PREFIX}*.lock")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _same_file(fd, path):
                path.unlink()
                removed += 1
        except OSError:  # held by a live process, or not ours to delete (a sticky folder)
            continue
        finally:
            os.close(fd)
    return removed


def _same_file(fd: int, path: Path) -> bool:
    """Is the open file `fd` still the one named `path` (not removed, not replaced)?"""
    try:
        named = os.stat(path)
    except OSError:
        return False
    opened = os.fstat(fd)
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


def holder_alive(path: str | os.PathLike[str]) -> bool | None:
    """Does the process of holder file `path` live? None when that cannot be told here (not a
    holder file, or its folder is not on this host)."""
    path = Path(path)
    if not path.name.startswith(HOLDER_PREFIX) or not path.parent.is_dir():
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True  # its holder has it locked
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def remove_dead_holders(lock_dir: Path | None = None) -> int:
    """Delete the holder files of processes that are gone (those this user may delete); how many."""
    folder = Path(lock_dir) if lock_dir is not None else default_dir()
    removed = 0
    for path in folder.glob(f"{HOLDER_PREFIX}*.lock"):
        if holder_alive(path) is False:
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
    return removed


class Lease:
    """A slot held by this process until `release()` (or until the process ends).

    `id` names this lease (no other acquisition of any slot has it) and `holder_path` the holder
    file of the process that took it: both go on its containers and folders."""

    def __init__(self, slot: Slot, fd: int, lock_dir: Path, owner: Holder | None = None) -> None:
        self.slot = slot
        self.lock_dir = lock_dir
        self._fd: int | None = fd
        owner = owner or holder(lock_dir)
        self.id = owner.lease_id()
        self.holder_path = owner.path
        #: Set once the containers earlier leases of the slot left were removed (by its first user).
        self.swept = False

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
        path = self.lock_dir / f"{SLOT_PREFIX}{index}.lock"
        for _ in range(10):
            fd = open_lock_file(path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return None
            if _same_file(fd, path):
                try:
                    return Lease(self.slot(index), fd, self.lock_dir)
                except BaseException:  # (its holder file could not be made): the slot stays free
                    os.close(fd)
                    raise
            os.close(fd)  # removed by a process that stopped (`leave`) after we opened it: the new one
        return None

    def free(self, purpose: str = "match") -> list[int]:
        """The slots `purpose` may take that nobody holds now (a snapshot: holders come and go).

        Each lock is tried shared and let go at once, so a holder's own exclusive lock is never taken."""
        free = []
        for index in self.candidates(purpose):
            try:
                fd = os.open(self.lock_dir / f"{SLOT_PREFIX}{index}.lock", os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:  # never used, or its last holder left
                free.append(index)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                continue  # held
            finally:
                os.close(fd)
            free.append(index)
        return free

    def acquire(self, timeout: float = 60.0, cpu: int | None = None, purpose: str = "match") -> Lease:
        """The lowest free slot `purpose` may take, waiting up to `timeout` seconds; raises SlotsBusy."""
        return _waiting(lambda: self.try_acquire(cpu, purpose), timeout, jitter=0.0, busy=(
            f"all {len(self.candidates(purpose))} sandbox slots for {purpose} games stayed taken for {timeout:.0f} s"))

    def try_acquire_pairs(self, pairs: int, purpose: str = "match", *, spare: int = 0) -> list[Lease] | None:
        """`pairs` slot pairs at once, or None holding nothing: a slot on one CPU and one on
        another (the lowest free on each), then more on the same two CPUs; every two CPUs are
        tried, lowest first, until one of them has the room. With `spare`, only when `spare`
        more pairs would still be free beside them (room for the bots that start cold)."""
        if len(self.cpus) < 2:
            plans = [(self.cpus[0], self.cpus[0])]
        else:
            plans = [(a, b) for a in self.cpus for b in self.cpus if a != b]
        for first, second in plans:
            leases = self._try_plan([first, second] * pairs, purpose)
            if leases is None:
                continue
            try:
                room = not spare or self._room_for(spare, purpose)
            except BaseException:  # (e.g. no file descriptor left for the probe): nothing stays held
                for lease in leases:
                    lease.release()
                raise
            if room:
                return leases
            for lease in leases:  # (other CPUs would leave as few free: the spare counts any slots)
                lease.release()
            return None
        return None

    def _room_for(self, pairs: int, purpose: str) -> bool:
        """Whether `pairs` more pairs' slots are free now, on any CPUs, as bots starting cold take
        them (`acquire`): taken and given back at once."""
        probe: list[Lease] = []
        try:
            for _ in range(2 * pairs):
                lease = self.try_acquire(purpose=purpose)
                if lease is None:
                    return False
                probe.append(lease)
            return True
        finally:
            for lease in probe:
                lease.release()

    def _try_plan(self, cpus: list[int], purpose: str) -> list[Lease] | None:
        """A slot on each of `cpus` in turn, or None holding nothing (also when taking one fails)."""
        leases: list[Lease] = []
        try:
            for cpu in cpus:
                lease = self.try_acquire(cpu, purpose)
                if lease is None:
                    break
                leases.append(lease)
            else:
                return leases
        except BaseException:
            for lease in leases:
                lease.release()
            raise
        for lease in leases:
            lease.release()
        return None

    def acquire_pairs(self, pairs: int, timeout: float = 60.0, purpose: str = "match", *,
                      spare: int = 0) -> list[Lease]:
        """`pairs` slot pairs (`try_acquire_pairs`, with `spare` pairs left free), waiting up to
        `timeout` seconds; raises SlotsBusy.

        All or nothing: while it waits it holds no slot, so two pools waiting for each other's
        slots never hold each other up for good (a pool taking its slots one by one did). Its
        pauses vary (jitter), so pools waiting side by side take turns."""
        left = f" leaving {2 * spare} free" if spare else ""
        return _waiting(lambda: self.try_acquire_pairs(pairs, purpose, spare=spare), timeout, jitter=0.05, busy=(
            f"{2 * pairs} of the {len(self.candidates(purpose))} sandbox slots for {purpose} games (two CPUs) "
            f"were not free together{left} within {timeout:.0f} s"))

    def _ensure_dir(self) -> None:
        ensure_lock_dir(self.lock_dir)


def _waiting(take: Callable[[], T | None], timeout: float, *, jitter: float, busy: str) -> T:
    """What `take()` gives once it gives something, trying every 50 ms (plus up to `jitter` s) for
    `timeout` seconds; SlotsBusy(`busy`) then."""
    deadline = time.monotonic() + timeout
    while True:
        taken = take()
        if taken is not None:
            return taken
        if time.monotonic() >= deadline:
            raise SlotsBusy(busy)
        time.sleep(0.05 + random.random() * jitter)


def ensure_lock_dir(folder: Path) -> None:
    """Make the lock folder if missing: every worker user may lock in it (sticky: none removes another's)."""
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o1777)  # noqa: S103


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
