"""`ProcessBot`: a bot run as a plain local subprocess (the local runner's connection).

This is NOT a sandbox. The bot runs as the current user, with the same files, network and
memory as the person running `armada play`; it can read and write anything they can. Use
it only for code you trust (your own bot, the starters); `armada_sandbox.DockerBot` is the
isolated connection the site uses.

The bot gets its own session and process group (`start_new_session`), and `close()` kills
the whole group, so children and grandchildren it leaves behind die with it. A descendant
that starts its own session or process group (`setsid`, `setpgid`, double fork) leaves the
group and survives `close()`; only the Docker sandbox contains those.

Unless `env` is given, the bot gets the environment of the sandbox
(`armada.referee.environment.bot_environment`), never the caller's: its folder is the
working folder, and HOME and TMPDIR point at a fresh private folder removed at `close()`
(the container's /tmp).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from armada.referee.connection import (
    LOG_HEAD_BYTES,
    LOG_TAIL_BYTES,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_OUTPUT_BYTES,
    STDOUT_READ_PAUSE_S,
    BotConnection,
    BotGone,
    ExitInfo,
    LineBuffer,
    LogBuffer,
    LogPump,
    drain,
)
from armada.referee.environment import SEED_VARIABLE, bot_environment


class ProcessBot(BotConnection):
    """Runs `argv` as a subprocess with pipes for stdin, stdout and stderr (no isolation)."""

    def __init__(self, argv: list[str], cwd: str | None = None, label: str = "bot",
                 env: Mapping[str, str] | None = None, *, max_line: int = MAX_LINE_BYTES,
                 max_output: int = MAX_OUTPUT_BYTES, log_head: int = LOG_HEAD_BYTES,
                 log_tail: int = LOG_TAIL_BYTES, max_log: int = MAX_LOG_BYTES) -> None:
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("ProcessBot needs a non-empty list of strings as argv")
        self.argv = list(argv)
        self.cwd = cwd
        self.label = label
        self.env = dict(env) if env is not None else None
        self.home: str | None = None
        self.max_output = max_output
        self._lines = LineBuffer(max_line, max_output)
        self._log = LogBuffer(log_head, log_tail, max_log, on_over=self._lines.stop)
        self._log_pump = LogPump(self._log)
        self._proc: subprocess.Popen[bytes] | None = None
        self._readers: list[threading.Thread] = []
        self._send_lock = threading.Lock()
        #: Held while starting and while `close` marks the bot closed: a close from another thread
        #: (Ctrl-C while the bots start) comes before the start (which then refuses) or after it (and
        #: kills what it started); a trial's interrupted starts left bots and their folders behind.
        self._life = threading.Lock()
        self._closed = False

    @classmethod
    def for_script(cls, path: str | os.PathLike[str], label: str | None = None,
                   **kwargs: object) -> ProcessBot:
        """A bot that runs the Python file `path` with this interpreter, inside the file's folder."""
        script = Path(path).resolve()
        return cls([sys.executable, str(script)], cwd=str(script.parent),
                   label=label or str(path), **kwargs)  # type: ignore[arg-type]

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        with self._life:
            self._start()

    def _start(self) -> None:
        if self._proc is not None:
            raise RuntimeError("ProcessBot.start() called twice")
        if self._closed:
            raise BotGone("the connection is already closed")
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.cwd, env=self.environment(), start_new_session=True, close_fds=True,
            )
        except OSError as exc:
            self._remove_home()
            raise BotGone(f"cannot run {self.argv[0]}: {exc.strerror or exc}") from None
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._readers = [
            threading.Thread(target=self._pump_stdout, args=(self._proc.stdout,), daemon=True,
                             name=f"armada-stdout-{self.label}"),
            threading.Thread(target=self._pump_stderr, args=(self._proc.stderr,), daemon=True,
                             name=f"armada-stderr-{self.label}"),
        ]
        for thread in self._readers:
            thread.start()

    def environment(self) -> dict[str, str]:
        """The bot's variables: `env` if given, else the sandbox's (with a new private HOME)."""
        if self.env is not None:
            env = dict(self.env)
            if self.bot_seed is not None:
                env[SEED_VARIABLE] = str(self.bot_seed)
            return env
        if self.home is None:
            self.home = tempfile.mkdtemp(prefix="armada-bot-home-")
        return bot_environment(sandbox="process", workdir=os.path.abspath(self.cwd or os.getcwd()),
                               home=self.home, seed=self.bot_seed)

    def _remove_home(self) -> None:
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None

    def _pump_stdout(self, stream: IO[bytes]) -> None:
        try:
            drain(stream.fileno(), self._lines.feed, STDOUT_READ_PAUSE_S, lines=self._lines.awaiting)
        finally:
            self._lines.close()

    def _pump_stderr(self, stream: IO[bytes]) -> None:
        self._log_pump.run(stream.fileno())

    # -- protocol bytes --------------------------------------------------------------------
    def send(self, line: bytes) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or self._closed:
            raise BotGone("the bot is not running")
        with self._send_lock:
            try:
                fd = proc.stdin.fileno()
                view = memoryview(line)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            except (OSError, ValueError) as exc:
                raise BotGone(f"the bot's input is closed ({exc.__class__.__name__})") from None

    def read_line(self, deadline: float) -> bytes | None:
        if self._proc is None:
            raise BotGone("the bot is not running")
        return self._lines.read_line(deadline)

    def log(self) -> str:
        return self._log.text()

    # -- ending ----------------------------------------------------------------------------
    def exit_info(self) -> ExitInfo:
        proc = self._proc
        if proc is None:
            return ExitInfo()
        if proc.returncode is not None:
            return _exit_info(proc.returncode)
        status = _peek_exit(proc.pid)
        return status if status is not None else ExitInfo()

    def close(self, grace: float = 1.0) -> ExitInfo:
        """Close stdin, wait up to `grace` seconds for the bot to exit, then kill its process group."""
        with self._life:  # (a start under way finishes first: its process is then killed here)
            self._closed = True
            proc = self._proc
            if proc is None:
                self._remove_home()
                return ExitInfo()
        self._close_stdin()
        end = time.monotonic() + max(0.0, grace)
        # Wait without reaping: while the leader is an unreaped zombie its group id cannot be reused.
        while _peek_exit(proc.pid) is None and proc.returncode is None and time.monotonic() < end:
            time.sleep(0.01)
        self._kill_group(proc)
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL not delivered (D state)
            proc.wait(timeout=5.0)
        self._close_stdin()
        for thread, stream in zip(self._readers, (proc.stdout, proc.stderr), strict=False):
            thread.join(timeout=2.0)
            # A descendant that escaped the group may still hold the pipe open; never close an fd
            # a reader thread is still blocked on (its number could be reused under it).
            if stream is not None and not thread.is_alive():
                with contextlib.suppress(OSError):
                    stream.close()
        self._remove_home()
        return self.exit_info()

    def _close_stdin(self) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        # A sender blocked on a full pipe holds the lock; it is released once the bot dies.
        if self._send_lock.acquire(timeout=0.05):
            try:
                proc.stdin.close()
            except OSError:
                pass
            finally:
                self._send_lock.release()

    @staticmethod
    def _kill_group(proc: subprocess.Popen[bytes]) -> None:
        if proc.returncode is not None:
            return  # already reaped (its group id may be reused); nothing safe to signal
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def _exit_info(returncode: int) -> ExitInfo:
    if returncode < 0:
        return ExitInfo(signal=-returncode)
    return ExitInfo(returncode=returncode)


def _peek_exit(pid: int) -> ExitInfo | None:
    """How process `pid` ended, without reaping it; None while it runs."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return None
    if info is None:
        return None
    if info.si_code == os.CLD_EXITED:
        return ExitInfo(returncode=info.si_status)
    return ExitInfo(signal=info.si_status)
