"""`DockerBot`: a `BotConnection` running one bot in its own hardened container.

One container per bot per match: no network, read-only root, the code mounted read-only at
/bot, a small noexec tmpfs at /tmp, every capability dropped, no-new-privileges, our
seccomp profile, pids/memory(=memory+swap)/CPU limits, nofile, nproc and core ulimits, an
init process, no Docker logging, labels for the sweeper (all of it `_containers`). Each bot
runs in a sandbox slot (`slots`): the slot's own uid (no other container shares it) and the
slot's CPU set. The protocol bytes go through host FIFOs (`_fifo`), not the Docker API.
`close()` always removes the container, and with it every process the bot started.

In a worker with warm slots (`warm`), `start()` takes a container that is already running
and waiting, copies the code into its slot's folder and says go; `close()` then leaves the
container's removal to the background (the match's result does not wait for it).

`start()` raises `SandboxUnavailable` for every failure that is not the bot's (no engine, no
image, no free slot, a released lease, a container the engine would not create or start). What
ends a bot once it runs is its status, except what the sandbox did to it: its container removed
or stopped from outside (`STOPPED_FROM_OUTSIDE`), the engine gone (stopped, restarted) when the
bot's output ended, or a process of it killed by the kernel when the machine ran out of memory
(`HOST_OOM`, `_memory`); `sandbox_fault`
says so, and the platform does not count such a match (games/runner.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import shutil
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from docker.errors import DockerException, ImageNotFound, NotFound

from armada.referee.connection import (
    STDOUT_READ_PAUSE_S,
    BotConnection,
    BotGone,
    ExitInfo,
    LineBuffer,
    LogBuffer,
    LogPump,
    drain,
)
from armada_sandbox._containers import (
    container_options,
    create_container,
    exit_info_from_state,
    remove_container,
    remove_stale,
    slot_labels,
    warm_entry,
)
from armada_sandbox._engine import SandboxUnavailable, docker_client
from armada_sandbox._fifo import FifoDir
from armada_sandbox._image import BOT_IMAGE, build_hint
from armada_sandbox._memory import PeakReader, to_mib
from armada_sandbox.folders import work_folder
from armada_sandbox.limits import SandboxLimits
from armada_sandbox.slots import Lease, SlotPool, SlotsBusy, default_pool
from armada_sandbox.warm import WarmPool, WarmSlot, copy_code, process_pool

#: Seconds `send()` waits for room in the bot's input pipe before giving up on the bot.
SEND_TIMEOUT_S = 10.0
#: `sandbox_fault` of a bot whose process an out-of-memory killer stopped though Docker says its own
#: limit did not: the machine ran short of memory, and its kernel stops bots first, however little they use.
HOST_OOM = ("the machine ran out of memory and its kernel stopped the bot (not the bot's own memory limit, "
            "which it did not reach)")
#: ... when its memory peak stayed below this share of its limit (its limit's kill reaches the limit).
HOST_OOM_BELOW = 0.95


def _engine_time(text: Any) -> float | None:
    """Epoch seconds of a time the engine reports (`2026-12-07T02:50:01.123456789Z`), None if unreadable
    (or the zero time of a container that never started or ended)."""
    if not isinstance(text, str) or text.startswith("0001-"):
        return None
    try:
        whole, _, rest = text.rstrip("Z").partition(".")
        fraction = float(f"0.{rest[:6]}") if rest else 0.0
        return datetime.fromisoformat(whole).replace(tzinfo=UTC).timestamp() + fraction
    except ValueError:
        return None
#: `sandbox_fault` of a bot whose container someone stopped through the engine while it played.
STOPPED_FROM_OUTSIDE = ("its container was stopped from outside while the bot ran (docker kill, stop or rm: "
                        "an operator or another program, not the bot)")


def _pump_stdout(io: FifoDir, lines: LineBuffer, eof: threading.Event, ended: Callable[[], None]) -> None:
    """Reader thread: the bot's stdout FIFO into `lines`; `ended()` runs when it ends (at once: the
    container's cgroup goes some 10 ms later), then `eof` is set."""
    try:
        fd = io.open_reader("stdout")
    except OSError:
        lines.close()
        eof.set()
        return
    try:
        drain(fd, lines.feed, STDOUT_READ_PAUSE_S, lines=lines.awaiting)
    finally:
        os.close(fd)
        with contextlib.suppress(Exception):
            ended()
        lines.close()
        eof.set()


def _pump_stderr(io: FifoDir, pump: LogPump) -> None:
    """Reader thread: the bot's stderr FIFO into its log (`pump` places the request marks)."""
    try:
        fd = io.open_reader("stderr")
    except OSError:
        return
    try:
        pump.run(fd)
    finally:
        os.close(fd)


class DockerBot(BotConnection):
    """A bot in a container. `code_dir` holds the bot; `entry` is its main script, relative.

    `slot` is a held slot lease (released by `close()`); without one, `start()` takes a ready
    container of `warm` (default: this process's warm pool, if it keeps one), else the lowest
    free slot of `pool` (default: the host's pool) that `purpose` may use, and `close()` frees it.
    """

    def __init__(
        self,
        code_dir: str | os.PathLike[str],
        entry: str = "main.py",
        *,
        label: str = "bot",
        limits: SandboxLimits | None = None,
        labels: dict[str, str] | None = None,
        image: str = BOT_IMAGE,
        client: Any = None,
        slot: Lease | None = None,
        pool: SlotPool | None = None,
        warm: WarmPool | bool | None = True,
        purpose: str = "match",
    ) -> None:
        self.code_dir = Path(code_dir).resolve()
        if not self.code_dir.is_dir():
            raise ValueError(f"bot code folder not found: {self.code_dir}")
        rel = PurePosixPath(entry)
        if rel.is_absolute() or ".." in rel.parts or not str(rel) or str(rel).startswith("-"):
            raise ValueError(f"bot entry must be a relative path inside the code folder, got {entry!r}")
        if not (self.code_dir / rel).is_file():
            raise ValueError(f"bot entry {entry!r} not found in {self.code_dir}")
        self.entry = rel.as_posix()
        if not (self.code_dir.stat().st_mode & 0o005 == 0o005 and (self.code_dir / rel).stat().st_mode & 0o004):
            raise ValueError(f"bot code in {self.code_dir} must be readable by the sandbox user "
                             f"(another uid): run `chmod -R a+rX` on it")
        self.label = label
        self.limits = (limits or SandboxLimits()).validate()
        self.labels = {str(k): str(v) for k, v in (labels or {}).items()}
        self.image = image
        self._client = client
        self.lease = slot
        self._pool = pool
        self.purpose = purpose
        self._warm_pool: WarmPool | None = (process_pool(image) if warm is True else warm) or None
        self._warm: WarmSlot | None = None
        #: True once `start()` took a warm container (tests and benches read it).
        self.was_warm = False
        #: Whether `close()` frees `lease` (a given one or one `start()` took; never a warm pool's).
        self._owns_lease = slot is not None
        self._retired = False  # a warm container handed back to its pool: closing again does nothing
        self.container: Any = None
        #: Why the sandbox, not the bot, ended the bot (its container removed from outside, the
        #: engine gone when its output ended); empty when it did not.
        self.sandbox_fault = ""
        self._io: FifoDir | None = None
        self._work: Path | None = None  # a cold start's work folder (its FIFOs)
        self._stdin: int | None = None
        self._fresh_streams()
        self._final: ExitInfo | None = None
        self._lock = threading.Lock()
        #: The container's memory peak, sampled after every reply and before it stops (`memory`).
        self._memory: PeakReader | None = None
        #: Its processes an out-of-memory killer stopped, read as its output ended (None: unknown).
        self._oom_kills: int | None = None
        #: Set (under the lock) before this connection kills or hands back its container: from then
        #: on a kill of it is its own, never one from outside (`_stopped_from_outside`).
        self._ending = False

    def _fresh_streams(self) -> None:
        """New buffers and reader threads' state (also after a warm start that failed)."""
        self._lines = LineBuffer(self.limits.max_line_bytes, self.limits.max_output_bytes)
        self._log = LogBuffer(self.limits.log_head_bytes, self.limits.log_tail_bytes, self.limits.max_log_bytes,
                              on_over=self._lines.stop)
        self._log_pump = LogPump(self._log)
        self._stdout_eof = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def container_id(self) -> str | None:
        return self.container.id if self.container is not None else None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the bot: in a warm container of the pool if one is ready, else cold in a slot.

        Raises SandboxUnavailable (the bot never ran) when the sandbox cannot start it."""
        if self.lease is None and self._warm_pool is not None and warm_entry(self.entry):
            warm = self._warm_pool.take(self.image, self.limits)
            if warm is not None and self._start_warm(warm):
                return
        client = self._client or docker_client()
        if self.lease is None:
            try:
                pool = self._pool or default_pool()
                self.lease = pool.acquire(timeout=self.limits.start_timeout_s, purpose=self.purpose)
                self._owns_lease = True
            except SlotsBusy as exc:
                raise self._unavailable(str(exc)) from None
        elif not self.lease.held:
            raise self._unavailable("its slot was already released")
        try:
            if not self.lease.swept:  # what an earlier holder of the slot left (it died) goes first
                remove_stale(client, self.lease)
                self.lease.swept = True
        except (DockerException, RuntimeError, OSError) as exc:
            self.close(grace=0)
            raise self._unavailable(str(exc)) from None
        labels = {"armada.match": "local", "armada.seat": "0",
                  **slot_labels(self.lease, self.labels, {"armada.bot": self.label[:200]})}
        try:  # (a folder, a FIFO or a thread the host cannot make is the platform's trouble, never the bot's)
            self._work = work_folder(self.lease.lock_dir)
            self._io = FifoDir(directory=self._work / "io")
            self._spawn_readers()
            options = container_options(self.code_dir, self._io.path, self.entry, self.limits, labels,
                                        self.bot_seed, self.lease.slot)
            self.container = create_container(client, self.image, options)
            self._memory = PeakReader(self.container.id)
            self.container.start()
            deadline = time.monotonic() + self.limits.start_timeout_s
            self._stdin = self._io.open_writer("stdin", deadline, self._alive_check())
            os.set_blocking(self._stdin, False)
        except ImageNotFound:
            self.close(grace=0)
            raise self._unavailable(f"bot image {self.image} is missing; {build_hint(self.image)}") from None
        except (DockerException, OSError, RuntimeError) as exc:  # the engine's, the host's (no bot code ran yet)
            self.close(grace=0)
            log = self._log.text().strip()
            raise self._unavailable(f"{exc}" + (f"; log: {log[-500:]}" if log else "")) from None

    def _unavailable(self, why: str) -> SandboxUnavailable:
        return SandboxUnavailable(f"the sandbox could not start {self.label!r}: {why}")

    def _start_warm(self, warm: WarmSlot) -> bool:
        """Copy the code into the warm slot's folder, say go, connect the streams; False (the slot
        handed back, everything reset) when the warm container is gone, e.g. after an engine restart."""
        self._warm, self.lease, self._io, self.container = warm, warm.lease, warm.io, warm.container
        self._memory = PeakReader(warm.container.id)
        self.was_warm = True
        self._spawn_readers()
        try:
            copy_code(self.code_dir, warm.code_dir)
            warm.say_go(self.bot_seed, self.entry)
            deadline = time.monotonic() + self.limits.start_timeout_s
            self._stdin = warm.io.open_writer("stdin", deadline, self._alive_check())
            os.set_blocking(self._stdin, False)
            return True
        except OSError:
            with self._lock:
                if self._stdin is not None:
                    with contextlib.suppress(OSError):
                        os.close(self._stdin)
                    self._stdin = None
                self._close_warm(0.0)
            self._retired = False
            self.was_warm, self.lease, self.container, self._memory = False, None, None, None
            self._fresh_streams()  # the cold start below gets streams of its own
            return False

    def _spawn_readers(self) -> None:
        """The stdout and stderr reader threads, bound to this start's FIFOs and buffers."""
        assert self._io is not None
        for target, name, args in ((_pump_stdout, "stdout", (self._io, self._lines, self._stdout_eof,
                                                              self._output_ended)),
                                   (_pump_stderr, "stderr", (self._io, self._log_pump))):
            thread = threading.Thread(target=target, args=args, name=f"dockerbot-{name}-{self.label}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _output_ended(self) -> None:
        """(The stdout thread, as the bot's output ends.) Read its cgroup while it is still there: the
        memory peak, and the out-of-memory kills of its processes (`_killed_by_the_host`)."""
        memory = self._memory
        if memory is not None:
            memory.sample()
            self._oom_kills = memory.oom_kills()

    def _alive_check(self) -> Any:
        """A cheap callable: is the container still running (asks the engine at most every 100 ms)."""
        last = [time.monotonic(), True]  # the first look after 100 ms: most bots open their end sooner

        def alive() -> bool:
            now = time.monotonic()
            if now - last[0] >= 0.1:
                last[0] = now
                try:
                    self.container.reload()
                    last[1] = self.container.attrs["State"].get("Running", False)
                except Exception:
                    last[1] = False
            return bool(last[1])

        return alive

    # -- data --------------------------------------------------------------------------------

    def send(self, line: bytes) -> None:
        fd = self._stdin
        if fd is None:
            raise BotGone("input closed")
        view = memoryview(line)
        give_up = time.monotonic() + SEND_TIMEOUT_S
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                remaining = give_up - time.monotonic()
                if remaining <= 0:
                    raise BotGone(f"bot did not read its input for {SEND_TIMEOUT_S:.0f} s") from None
                select.select([], [fd], [], min(remaining, 0.5))
                continue
            except OSError as exc:  # EPIPE: the bot closed its stdin or exited
                raise BotGone(f"input closed ({exc.strerror})") from None
            view = view[written:]

    def read_line(self, deadline: float) -> bytes | None:
        line = self._lines.read_line(deadline)
        if line is not None:
            self._sample_memory()
        return line

    def _sample_memory(self) -> None:
        """Read the container's memory peak now (its cgroup goes when the bot ends)."""
        if self._memory is not None:
            self._memory.sample()

    def memory_peak_bytes(self) -> int | None:
        """The container's memory peak seen so far; at least the limit when the limit killed it."""
        peak = self._memory.peak_bytes if self._memory is not None else None
        if self._final is not None and self._final.oom_killed:
            return max(peak or 0, self.limits.memory_bytes)
        return peak

    def log(self) -> str:
        return self._log.text()

    # -- ending ------------------------------------------------------------------------------

    def exit_info(self) -> ExitInfo:
        if self._final is not None:
            return self._final
        if self.container is None:
            return ExitInfo()
        if not self._stdout_eof.is_set():
            # Its stdout is open, so the container runs: when the bot's process ends, docker-init
            # ends and takes every process of the container with it, closing the FIFO. (No
            # inspect: the referee asks before each `end`, and the engine's CPU is the matches'.)
            return ExitInfo()
        # Output closed: the bot is ending; give the engine a moment to record how.
        self._sample_memory()
        self._wait(2.0)
        info = self._inspect(playing=True)
        if info.returncode is not None:
            self._final = info
        return info

    def _wait(self, timeout: float) -> bool:
        """Wait up to `timeout` s for the container to stop; True if it did."""
        try:
            self.container.wait(timeout=max(timeout, 0.01))
            return True
        except Exception:  # requests' ReadTimeout / ConnectionError, or the container is gone
            return False

    def _killed_by_the_host(self) -> bool:
        """Did an out-of-memory killer stop a process of the bot while its memory stayed clearly
        below its limit (so not its limit's kill, whatever Docker managed to record)?"""
        peak = self._memory.peak_bytes if self._memory is not None else None
        return bool(self._oom_kills) and peak is not None and peak < HOST_OOM_BELOW * self.limits.memory_bytes

    def _killed_by_its_limit(self) -> bool:
        """Did an out-of-memory killer stop a process of the bot as its memory reached its limit
        (the caller checks that the bot itself ended by SIGKILL)?
        Docker's `OOMKilled` can miss it: on cgroup v2 the kill's event may come after the exit's
        (a CI run read a memory bomb at its 128 MiB limit as "killed by signal 9")."""
        peak = self._memory.peak_bytes if self._memory is not None else None
        return bool(self._oom_kills) and peak is not None and peak >= HOST_OOM_BELOW * self.limits.memory_bytes

    def _fault(self, reason: str) -> None:
        """Say the sandbox ended the bot, unless this connection is ending it (`close`: the
        referee's last `exit_info` may run beside it; a review saw its own removal read as one
        from outside, which voided the match of a bot that closed its output and lingered)."""
        with self._lock:
            if not (self._ending or self._retired):
                self.sandbox_fault = self.sandbox_fault or reason

    def _stopped_from_outside(self) -> bool:
        """Did someone ask the engine to kill, stop or remove the container while the bot played
        (`docker kill`, `docker stop`, `docker rm -f`: the engine records a `kill` event for each)?
        A bot that kills itself, or the kernel's out-of-memory killer, records none; this connection
        kills its container only after `_ending` is set (a review: `close()` racing the referee's
        last `exit_info` read its own kill as one from outside, so a bot that closed its output and
        lingered could void a match it was losing). The window is the container's own start and
        finish on the engine's clock: no skew with ours, and never a wait for events to come."""
        if self._ending or self._retired or self.container is None:
            return False
        try:
            state = self.container.attrs.get("State", {})
            started, finished = _engine_time(state.get("StartedAt")), _engine_time(state.get("FinishedAt"))
            if started is None or finished is None or finished < started:
                return False
            client = self._client or docker_client()
            events = client.events(since=started - 1.0, until=finished + 0.5, decode=True,
                                   filters={"container": self.container.id, "event": ["kill", "destroy"]})
            try:
                found = any(True for _event in events)
            finally:
                events.close()
        except Exception:  # an engine that cannot tell: the exit stands as the bot's
            return False
        with self._lock:  # (a close that began meanwhile made that kill)
            return found and not self._ending

    def _inspect(self, playing: bool = False) -> ExitInfo:
        """The container's final state; while `playing`, a container gone or an engine that does
        not answer is the sandbox's fault (`sandbox_fault`), not the bot's."""
        try:
            self.container.reload()
        except NotFound:
            if playing:
                self._fault("its container was removed while the bot ran")
            return ExitInfo()
        except Exception as exc:
            if playing:
                self._fault(f"the Docker engine stopped answering while the bot ran ({exc.__class__.__name__})")
            return ExitInfo()
        info = exit_info_from_state(self.container.attrs.get("State", {}))
        if playing and info.signal == 9 and not info.oom_killed and self._killed_by_its_limit():
            info = dataclasses.replace(info, oom_killed=True)  # (the kernel's kill is a SIGKILL)
        elif playing and info.returncode and not info.oom_killed and self._killed_by_the_host():
            self.sandbox_fault = self.sandbox_fault or HOST_OOM
        elif playing and info.returncode and not info.oom_killed and self._stopped_from_outside():
            self.sandbox_fault = self.sandbox_fault or STOPPED_FROM_OUTSIDE
        if info.oom_killed:  # the limit stopped it: it reached the limit, whatever was sampled before
            seen = self._memory.peak_bytes if self._memory is not None else None
            peak = max(seen or 0, self.limits.memory_bytes)
            info = dataclasses.replace(info, memory_peak_mib=to_mib(peak), memory_limit_mib=self.limits.memory_mb)
        return info

    def close(self, grace: float = 1.0) -> ExitInfo:
        with self._lock:
            if self._retired:
                return self._final or ExitInfo()
            self._ending = True  # every kill of the container from here on is this connection's
            self._sample_memory()  # before its input closes: the bot then ends, and its cgroup with it
            if self._stdin is not None:
                with contextlib.suppress(OSError):
                    os.close(self._stdin)
                self._stdin = None
            if self._warm is not None:
                return self._close_warm(grace)
            info = self._final or ExitInfo()
            if self.container is not None:
                if grace <= 0 or not self._wait(grace):
                    with contextlib.suppress(Exception):  # already stopped, or never started
                        self.container.kill()
                    self._wait(5.0)
                info = self._final or self._inspect()
                if info.returncode is not None:
                    self._final = info
                remove_container(self.container)
            if self._io is not None:
                for name in ("stdout", "stderr"):
                    self._io.release_reader(name)
                for thread in self._threads:
                    thread.join(timeout=5.0)
                self._io.remove()
                self._io = None
            if self._work is not None:
                shutil.rmtree(self._work, ignore_errors=True)
                self._work = None
            if self.lease is not None and self._owns_lease:
                self.lease.release()  # the container is gone: the slot's uid runs nothing any more
            return info

    def _close_warm(self, grace: float) -> ExitInfo:
        """(Under the lock.) Wait up to `grace` for the bot's output to end (its last log lines),
        then leave the container's removal and the slot's next container to the warm pool."""
        warm, self._warm = self._warm, None
        assert warm is not None and self._warm_pool is not None
        self._retired = True
        self._stdout_eof.wait(max(grace, 0.0))
        io, threads = self._io, list(self._threads)
        self._io = None

        def release_streams() -> None:  # after the container is gone: no writer is left
            assert io is not None
            for name in ("stdout", "stderr"):
                io.release_reader(name)
            for thread in threads:
                thread.join(timeout=5.0)

        self._warm_pool.retire(warm, cleanup=release_streams)  # killed at once: it had its grace
        return self._final or ExitInfo()
