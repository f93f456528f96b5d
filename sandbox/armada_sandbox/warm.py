"""Warm containers: slots this process keeps with a container created and started ahead.

A `WarmPool` holds `pairs` slot pairs for the life of the process (docs/sandbox.md, "Warm
containers"). Each slot has an opaque folder on the host, `<root>/<random>/` with `code/`
(mounted read-only at /bot) and `io/` (the FIFOs, and `go`). Its container is created with
the whole wall of `container_options` (`_containers`) and started; its shell waits on `go`. A match takes a
ready slot (`take`), copies the bot's code into `code/`, writes the bot's seed and entry
into `go`, and plays. The container serves that one bot: `retire` closes it off the match's
critical path (kill, remove, delete the folder) and prepares a new one for the slot, while the
slot stays held, so its uid never runs two containers.

A slot's folder and container name nothing of the bot or the match. When the process dies
its slots are free at once (flock) and the sweeper removes their containers.

Each held slot also keeps a network **anchor**: a tiny container with the same wall and
`network_mode="none"` whose network namespace (loopback only) the slot's bot containers
join, one at a time. Making and tearing down a network namespace is half of the engine's
CPU per container; the slot's bots never overlap, and nothing of one outlives its container.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from armada_sandbox._containers import (
    anchor_options,
    create_container,
    remove_container,
    remove_stale,
    warm_container_options,
)
from armada_sandbox._engine import docker_client
from armada_sandbox._fifo import NAMES, FifoDir
from armada_sandbox._image import BOT_IMAGE
from armada_sandbox.folders import work_folder
from armada_sandbox.limits import SandboxLimits, limits_for
from armada_sandbox.slots import Lease, SlotPool, SlotsBusy, default_pool, leave

#: The FIFO a warm container's shell reads its bot's seed and entry from.
GO = "go"
#: Label of a warm container and anchor: the pid of the process whose pool made it (which worker).
WORKER_LABEL = "armada.worker"
#: Variable: warm slot pairs a worker process keeps (0 or unset: none, every bot starts cold).
PAIRS_VARIABLE = "ARMADA_SANDBOX_WARM_PAIRS"
#: Variable: what the process's warm slots are for ("match" or "validation").
PURPOSE_VARIABLE = "ARMADA_SANDBOX_PURPOSE"
#: Seconds `take` waits for a slot whose container is still being prepared.
TAKE_WAIT_S = 5.0
#: Seconds a new pool waits for its slots to be free.
SLOT_WAIT_S = 5.0
#: Seconds a new container gets to open its `go` FIFO.
READY_TIMEOUT_S = 30.0
#: Pauses between tries to remove a retired container the engine would not remove, before the
#: slot counts as lost.
REMOVE_PAUSES_S = (1.0, 2.0, 5.0, 10.0, 20.0)
#: A lost slot is tried again after this many seconds, then twice as long each time, up to
#: LOST_RETRY_MAX_S: once its container is gone and it can be prepared, it is back in use.
LOST_RETRY_S = 30.0
LOST_RETRY_MAX_S = 600.0


def container_key(image: str, limits: SandboxLimits) -> tuple[Any, ...]:
    """What a container is made for: the image and the limits Docker applies (not the referee's)."""
    return (image, limits.memory_mb, limits.pids, limits.tmp_mb, limits.cpus, limits.nofile)


@dataclass
class WarmSlot:
    """One held slot with its folder and its container waiting on `go`."""

    lease: Lease
    folder: Path
    io: FifoDir
    key: tuple[Any, ...]
    container: Any = None
    go_fd: int | None = None
    ready: threading.Event = field(default_factory=threading.Event)
    failed: str = ""

    @property
    def code_dir(self) -> Path:
        return self.folder / "code"

    def say_go(self, seed: int | None, entry: str) -> None:
        """Tell the waiting shell to run `entry` with ARMADA_BOT_SEED `seed` (OSError if it is gone)."""
        fd, self.go_fd = self.go_fd, None
        if fd is None:
            raise BrokenPipeError("the warm container is not waiting")
        try:
            os.write(fd, f"{'-' if seed is None else int(seed)} {entry}\n".encode())
        finally:
            os.close(fd)


def copy_code(source: Path, target: Path) -> None:
    """Put the bot's files into a slot's code folder, readable (not writable) by any uid: hard links
    where they can be made (a version of 100 MiB from the worker's cache of unpacked versions costs
    no copy), copies elsewhere."""
    # A symbolic link stays a link (never followed).
    shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True, copy_function=_link_or_copy)
    for folder, _dirs, files in os.walk(target):
        os.chmod(folder, 0o755)  # noqa: S103 (the bot's uid reads its code)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path) and os.stat(path).st_mode & 0o444 != 0o444:
                os.chmod(path, 0o644)  # (a copy: a linked file was readable already, its original is untouched)


def _link_or_copy(source: str, target: str) -> None:
    """A hard link of a file every uid may read already (nothing is changed on the original), else a copy."""
    try:
        if os.stat(source).st_mode & 0o444 == 0o444:
            os.link(source, target)
            return
    except OSError:
        pass
    shutil.copy2(source, target)


class WarmPool:
    """`pairs` slot pairs of `pool` kept warm for `purpose` games, in containers of `image`."""

    def __init__(self, pairs: int = 1, *, image: str, limits: SandboxLimits | None = None,
                 pool: SlotPool | None = None, purpose: str = "match", client: Any = None,
                 labels: dict[str, str] | None = None, slot_wait: float | None = None,
                 take_wait: float = TAKE_WAIT_S, spare: int = 0) -> None:
        if pairs < 1:
            raise ValueError("a warm pool needs at least one pair")
        self.image = image
        self.limits = (limits or limits_for()).validate()
        self.pool = pool or default_pool()
        self.purpose = purpose
        self._client = client
        # Extra labels of its containers (e.g. a test run's), and the process that owns them.
        self.labels = {WORKER_LABEL: str(os.getpid()), **(labels or {})}
        self.take_wait = take_wait  # how long `take` waits for a slot still being prepared
        self._lock = threading.Condition()
        self._slots: list[WarmSlot] = []
        self._threads: list[threading.Thread] = []
        self._closing = threading.Event()  # set by close() (`_closed`): a lost slot's tries stop waiting
        self._anchors: dict[int, Any] = {}  # slot number -> its network anchor container
        self._waiting: dict[tuple[Any, ...], int] = {}  # bots waiting in `take`, by container key
        self._playing: list[str] = []  # CPU sets of the slots taken and not yet removed
        self._lost: list[Lease] = []  # slots out of use (a container that would not go): held till close
        wait = SLOT_WAIT_S if slot_wait is None else slot_wait
        leases = self.pool.acquire_pairs(pairs, wait, purpose=purpose, spare=spare)
        try:
            for lease in leases:
                self._slots.append(self._prepare_later(lease, container_key(image, self.limits)))
        except BaseException:  # (e.g. no room for a work folder): no pool, so nothing of it stays held
            preparing = {id(warm.lease) for warm in self._slots}
            for lease in leases:
                if id(lease) not in preparing:
                    lease.release()
            self.close()
            raise

    @property
    def _closed(self) -> bool:
        return self._closing.is_set()

    # -- matches -----------------------------------------------------------------------

    def take(self, image: str, limits: SandboxLimits, wait: float | None = None) -> WarmSlot | None:
        """A ready warm slot for a bot of `image` under `limits`, or None (start cold then).

        Waits up to `wait` seconds (default: the pool's `take_wait`) for a slot still being
        prepared. A slot made for other limits is prepared again for these ones (the next bot of
        that kind finds it warm).
        """
        key = container_key(image, limits)
        deadline = time.monotonic() + (self.take_wait if wait is None else wait)
        with self._lock:
            self._waiting[key] = self._waiting.get(key, 0) + 1
            try:
                while not self._closed:
                    warm = self._best(key, time.monotonic() < deadline)
                    if warm is not None:
                        self._slots.remove(warm)
                        self._playing.append(warm.lease.slot.cpuset)
                        return warm
                    supply = sum(w.key == key and not w.failed for w in self._slots)
                    spare = next((w for w in self._slots if w.ready.is_set() and (w.failed or w.key != key)), None)
                    if supply < self._waiting[key] and spare is not None:  # made for other limits, or failed
                        self._slots.remove(spare)
                        self._recycle(spare, key)
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return None
                    self._lock.wait(min(remaining, 0.05))
            finally:
                self._waiting[key] -= 1
        return None

    def _best(self, key: tuple[Any, ...], may_wait: bool) -> WarmSlot | None:
        """(Under the lock.) The ready slot on the CPU fewest of this pool's bots play on; None
        while one on an idle CPU is still being prepared and `may_wait`."""
        def busy(warm: WarmSlot) -> int:
            return self._playing.count(warm.lease.slot.cpuset)

        mine = [w for w in self._slots if w.key == key and not w.failed]
        ready = [w for w in mine if w.ready.is_set()]
        if not ready:
            return None
        best = min(ready, key=busy)
        if busy(best) and may_wait and any(not busy(w) for w in mine if not w.ready.is_set()):
            return None
        return best

    def retire(self, warm: WarmSlot, grace: float = 0.0, cleanup: Callable[[], None] | None = None) -> None:
        """After its match: remove the container off the caller's path (then `cleanup()`, e.g. join
        the stream readers), then prepare the slot again. Its CPU counts as busy until removed."""
        with self._lock:
            self._recycle(warm, warm.key, grace, cleanup, playing=True)

    # -- preparing ------------------------------------------------------------------------

    def _prepare_later(self, lease: Lease, key: tuple[Any, ...]) -> WarmSlot:
        folder = work_folder(self.pool.lock_dir)
        (folder / "code").mkdir(mode=0o755)
        io = FifoDir(directory=folder / "io", names=(*NAMES, GO))
        warm = WarmSlot(lease, folder, io, key)
        self._background(self._prepare, warm)
        return warm

    def _prepare(self, warm: WarmSlot) -> None:
        limits = self._limits_of(warm.key)
        try:
            client = self._client or docker_client()
            if not warm.lease.swept:  # what an earlier holder of the slot left (it died): gone first
                remove_stale(client, warm.lease)
                warm.lease.swept = True
            for fresh_anchor in (False, True):  # an anchor gone from outside: make another, once
                anchor = self._anchor(client, warm.lease, warm.key[0], fresh_anchor)
                options = warm_container_options(warm.code_dir, warm.io.path, limits, warm.lease, self.labels,
                                                 anchor.id)
                try:
                    warm.container = create_container(client, warm.key[0], options)
                    warm.container.start()
                    break
                except Exception:
                    remove_container(warm.container)
                    warm.container = None
                    if fresh_anchor:
                        raise
            warm.go_fd = warm.io.open_writer(GO, time.monotonic() + READY_TIMEOUT_S)
        except Exception as exc:  # Docker down, image gone: the slot starts its bots cold meanwhile
            warm.failed = f"{exc.__class__.__name__}: {str(exc)[:200]}"
        with self._lock:
            warm.ready.set()
            self._lock.notify_all()

    def _anchor(self, client: Any, lease: Lease, image: str, fresh: bool = False) -> Any:
        """The slot's network anchor; a new one the first time, or when `fresh` (the last is gone)."""
        anchor = self._anchors.get(lease.slot.index)
        if anchor is not None and not fresh:
            return anchor
        remove_container(anchor)
        anchor = create_container(client, image, anchor_options(lease, self.labels))
        self._anchors[lease.slot.index] = anchor
        anchor.start()
        return anchor

    def _limits_of(self, key: tuple[Any, ...]) -> SandboxLimits:
        _, memory_mb, pids, tmp_mb, cpus, nofile = key
        return self.limits.replace({"memory_mb": memory_mb, "pids": pids, "tmp_mb": tmp_mb,
                                    "cpus": cpus, "nofile": nofile})

    def _recycle(self, warm: WarmSlot, key: tuple[Any, ...], grace: float = 0.0,
                 cleanup: Callable[[], None] | None = None, playing: bool = False) -> None:
        """(Under the lock.) Dispose of `warm` in the background; then a new container for its slot.

        The next container is made only once the last one is surely gone (its bot may not
        share the slot's uid or network with anything of the one before); a slot whose
        container cannot be removed, or that cannot be prepared again, is lost (held, so
        unused) until `_recover` has it back."""
        def run() -> None:
            gone = False
            try:
                gone = dispose(warm, grace, cleanup)
                for pause in REMOVE_PAUSES_S:  # an engine that failed to remove it: try again a while
                    if gone:
                        break
                    time.sleep(pause)
                    gone = remove_container(warm.container)
            except Exception as exc:  # never lose the slot's state with the thread
                print(f"armada warm pool: disposing of slot {warm.lease.slot.index} failed: {exc}", file=sys.stderr)
            self._after_removal(warm, key, gone, playing)
        self._background(run)

    def _after_removal(self, warm: WarmSlot, key: tuple[Any, ...], gone: bool, playing: bool) -> None:
        with self._lock:
            if playing:
                with contextlib.suppress(ValueError):
                    self._playing.remove(warm.lease.slot.cpuset)
            if self._closed:  # (after close: whatever is left of the slot, its next holder removes first)
                warm.lease.release()
            elif not gone:
                print(f"armada warm pool: slot {warm.lease.slot.index} is out of use until the engine removes "
                      "its last container", file=sys.stderr)
                self._lose(warm, key)
            else:
                try:
                    self._slots.append(self._prepare_later(warm.lease, key))
                except Exception as exc:  # e.g. no space for its folder: out of use for a while, never dropped
                    print(f"armada warm pool: slot {warm.lease.slot.index} cannot be prepared again: {exc}",
                          file=sys.stderr)
                    self._lose(warm, key)
            self._lock.notify_all()

    def _lose(self, warm: WarmSlot, key: tuple[Any, ...]) -> None:
        """(Under the lock.) The slot is out of use (held: `close` frees it) and tried again later."""
        self._lost.append(warm.lease)
        self._background(self._recover, warm, key)

    def _recover(self, warm: WarmSlot, key: tuple[Any, ...]) -> None:
        """A lost slot back in the pool once its last container is gone and it can be prepared again:
        tried after LOST_RETRY_S, then twice as long each time (an engine back from an outage, a
        disk with room again); stops when the pool closes."""
        pause = LOST_RETRY_S
        while not self._closing.wait(pause):
            try:
                gone = warm.container is None or remove_container(warm.container)
            except Exception:
                gone = False
            if gone:
                with self._lock:
                    if self._closed:
                        return
                    try:
                        fresh = self._prepare_later(warm.lease, key)
                    except Exception:
                        fresh = None
                    if fresh is not None:
                        self._lost.remove(warm.lease)
                        self._slots.append(fresh)
                        self._lock.notify_all()
                        print(f"armada warm pool: slot {warm.lease.slot.index} is in use again", file=sys.stderr)
                        return
            pause = min(pause * 2, LOST_RETRY_MAX_S)

    def _background(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name="armada-warm")
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    # -- ending ------------------------------------------------------------------------------

    def close(self) -> None:
        """Remove every warm container and free the slots (waits for the background work)."""
        with self._lock:
            self._closing.set()
            slots, self._slots = self._slots, []
            self._lock.notify_all()
        for thread in list(self._threads):
            thread.join(timeout=30)
        for warm in slots:
            warm.ready.wait(timeout=30)
            dispose(warm)
        for thread in list(self._threads):
            thread.join(timeout=30)
        for anchor in self._anchors.values():  # after every bot container that joined it
            remove_container(anchor)
        for lease in [warm.lease for warm in slots] + self._lost:
            lease.release()

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def dispose(warm: WarmSlot, grace: float = 0.0, cleanup: Callable[[], None] | None = None) -> bool:
    """Stop and remove the slot's container, run `cleanup`, delete its folder (the lease stays held).

    True when the container is surely gone (the engine says it no longer exists)."""
    if warm.go_fd is not None:
        with contextlib.suppress(OSError):
            os.close(warm.go_fd)  # a shell still waiting reads end of file and exits
        warm.go_fd = None
    container = warm.container
    gone = True
    if container is not None:
        if grace > 0:
            with contextlib.suppress(Exception):
                container.wait(timeout=grace)
        gone = remove_container(container)
    if cleanup is not None:
        with contextlib.suppress(Exception):
            cleanup()
    warm.io.remove()
    shutil.rmtree(warm.folder, ignore_errors=True)
    return gone


_process_pool: WarmPool | None = None
#: When this process may try again to make its pool after its slots were busy.
_busy_until = [0.0]
#: Seconds before a process whose slots were busy tries again.
BUSY_RETRY_S = 60.0
#: Pairs a worker's pool leaves free on the host when it is made (for the bots that start cold).
SPARE_PAIRS = 1
_process_lock = threading.Lock()


def process_pool(image: str | None = None, limits: SandboxLimits | None = None) -> WarmPool | None:
    """This process's warm pool, made on first use from ARMADA_SANDBOX_WARM_PAIRS (None when 0).

    Workers set the variable (`make up`); local runs and tests leave it unset and start cold.
    None too while the slots it needs are taken (asked again on the next call).
    """
    global _process_pool
    try:
        pairs = int(os.environ.get(PAIRS_VARIABLE) or 0)
    except ValueError:
        pairs = 0
    if pairs <= 0:
        return None
    with _process_lock:
        if _process_pool is None:
            purpose = os.environ.get(PURPOSE_VARIABLE) or "match"
            if time.monotonic() < _busy_until[0]:
                return None
            try:
                _process_pool = _fewer_if_busy(pairs, image or BOT_IMAGE, limits, purpose)
            except Exception as exc:  # busy slots, or a failure (it holds nothing then): cold starts for a while
                if not isinstance(exc, SlotsBusy):
                    print(f"armada warm pool: cannot make this worker's pool, its bots start cold: {exc}",
                          file=sys.stderr)
                _busy_until[0] = time.monotonic() + BUSY_RETRY_S  # asked again after a while
                return None
            atexit.register(close_process_pool)
        return _process_pool


def _fewer_if_busy(pairs: int, image: str, limits: SandboxLimits | None, purpose: str) -> WarmPool:
    """A pool of `pairs` pairs, else of as many as leave SPARE_PAIRS free on the host (its other
    workers' pools hold the rest: the bots that start cold, here or there, need room); SlotsBusy
    when not one pair does. Never waits: a worker starting (Celery gives it 4 s) must not block."""
    for count in range(pairs, 0, -1):
        try:
            made = WarmPool(count, image=image, limits=limits, purpose=purpose, slot_wait=0, spare=SPARE_PAIRS)
        except SlotsBusy:
            continue
        if count < pairs:
            print(f"armada warm pool: {count} of {pairs} warm slot pairs: the host's other slots are held "
                  f"(its other workers' pools) and {SPARE_PAIRS} pair stays free for cold starts", file=sys.stderr)
        return made
    raise SlotsBusy(f"no warm slot pair is free beside {SPARE_PAIRS} pair left for cold starts")


def close_process_pool() -> None:
    """Remove this process's warm containers and free its slots, then its lock files (its holder
    file, and the slot lock files nobody holds): a worker process stopping."""
    global _process_pool
    with _process_lock:
        pool, _process_pool = _process_pool, None
    if pool is not None:
        pool.close()
    leave()
