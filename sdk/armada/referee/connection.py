"""`BotConnection`: how the referee talks to one running bot, whatever runs it.

A connection moves bytes; the referee owns the protocol (ids, JSON, deadlines). Concrete
connections (`ProcessBot` here, `armada_sandbox.DockerBot`) start the bot, then feed what
the bot writes into a `LineBuffer` (stdout) and a `LogBuffer` (stderr) from background
threads, so both streams are drained all the time and never block the bot.
"""

from __future__ import annotations

import array
import collections
import contextlib
import fcntl
import os
import select
import termios
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from armada.logmarks import EXCEPTION_MARK

#: Longest reply line accepted (protocol.md): longer is status "output".
MAX_LINE_BYTES = 1024 * 1024
#: All the stdout one bot may write in one match (docs/decisions.md D-R-3): past it, status "output".
MAX_OUTPUT_BYTES = 64 * MAX_LINE_BYTES
#: All the stderr one bot may write in one match: past it, the bot is stopped with status "output".
MAX_LOG_BYTES = MAX_OUTPUT_BYTES
#: Stale replies (an id below the request's) the referee drops per request: past it, status "protocol".
MAX_STALE_LINES = 1000
#: Lines a bot may have written that the referee has not read yet; past it the bot is flooding
#: (no request can use them: they are stale or wrong), further lines are only counted.
MAX_QUEUED_LINES = 2 * MAX_STALE_LINES
#: Bytes read from a bot's stream at a time.
READ_CHUNK = 65536
#: Pause of a log reader after a read that did not fill a chunk: a bot writing its log in tiny
#: pieces cannot make the referee read more than about 1000 times a second.
LOG_READ_PAUSE_S = 0.001
#: The same pause for a bot's stdout, after a read that ended inside a line: a bot trickling its
#: reply a byte at a time cannot make the referee read (and spend the worker's CPU) more than about
#: 1000 times a second; a reply written whole is read at once, never delayed, up to a pipe's buffer
#: (64 KiB); a longer one can wait 1 ms more per 64 KiB that arrives short of a chunk (a 1 MiB reply:
#: at most about 16 ms, counted in its turn).
STDOUT_READ_PAUSE_S = 0.001
#: The bot library's line for a caught exception (armada.logmarks), as bytes.
_MARK = EXCEPTION_MARK.encode("ascii")
#: Default stderr cap: this many bytes of the head and of the tail are kept.
LOG_HEAD_BYTES = 32 * 1024
LOG_TAIL_BYTES = 32 * 1024


class BotGone(Exception):
    """The bot's output ended (exit, crash or closed stdout) before a full line came."""


class Unavailable(Exception):
    """`start()` could not set the connection up for a reason that is not the bot's.

    No engine, no image, no free slot: nothing the bot did. `play_match` closes every
    connection and lets it out instead of calling it the bot's fault (a `crashed` status).
    """


class LineTooLong(Exception):
    """The bot wrote a line longer than the cap, or more output than a match allows (status "output")."""


class LineFlood(Exception):
    """The bot wrote more lines than it was asked for (status "protocol")."""


@dataclass(frozen=True)
class ExitInfo:
    """How the bot process ended: exit code, killing signal, whether the memory limit killed it (and
    then, where the sandbox knows them, the memory peak it reached and its limit, in MiB)."""

    returncode: int | None = None
    signal: int | None = None
    oom_killed: bool = False
    memory_peak_mib: int | None = None
    memory_limit_mib: int | None = None
    #: The exception that ended a bot run in the referee's own process (`armada.rl`'s Python callables),
    #: which has no process to exit: its class name.
    raised: str | None = None

    def describe(self) -> str:
        if self.oom_killed:
            known = [f"{name} {value} MiB" for name, value in (("peak", self.memory_peak_mib),
                                                               ("limit", self.memory_limit_mib)) if value is not None]
            return "killed for exceeding its memory limit" + (f" ({', '.join(known)})" if known else "")
        if self.signal is not None:
            return f"killed by signal {self.signal}"
        if self.raised is not None:
            return f"raised {self.raised}"
        if self.returncode is not None:
            return f"exited with code {self.returncode}"
        return "still running"


def drain(fd: int, feed: Callable[[bytes], bool | None], pause: float = 0.0, *,
          lines: Callable[[], bool] | None = None) -> None:
    """Read `fd` to its end, passing every chunk to `feed`; a read error ends it like end of stream.

    Connections run this in a thread per stream, so a bot never blocks on a full pipe. It stops
    early when `feed` returns False (the stream's cap is passed: nothing more is worth reading).
    After a read shorter than a chunk it sleeps `pause` seconds, so that a stream written in
    tiny pieces is read in fewer, larger ones; with `lines` (a bot's stdout: its buffer's
    `awaiting`) not after a read that ended a line while a reply may still be awaited, so a whole
    reply is never held back, and a bot writing line ends a byte at a time pays the pause once
    its output's fate is decided (flooded, too long).
    """
    with contextlib.suppress(OSError):
        while chunk := os.read(fd, READ_CHUNK):
            if feed(chunk) is False:
                return
            if pause and len(chunk) < READ_CHUNK and not (lines and chunk.endswith(b"\n") and lines()):
                time.sleep(pause)


class LineBuffer:
    """Splits a byte stream into lines for a reader waiting with a deadline; thread safe.

    `feed` costs time linear in the bytes it gets. Past `max_output` bytes in all, further
    bytes are dropped and `read_line` raises LineTooLong; past `max_queued` unread lines,
    further lines are only counted and `read_line` raises LineFlood once the queue is read. Of
    these limits the first one passed decides, whenever the reader comes.
    `stop(reason)` makes every later `read_line` raise LineTooLong(reason) (e.g. the stderr cap).
    """

    def __init__(self, max_line: int = MAX_LINE_BYTES, max_output: int = MAX_OUTPUT_BYTES,
                 max_queued: int = MAX_QUEUED_LINES) -> None:
        self.max_line = max_line
        self.max_output = max_output
        self.max_queued = max_queued
        self._lines: collections.deque[bytes] = collections.deque()
        self._partial = bytearray()
        self._eof = False
        self._too_long = False
        self._flooded = False
        self._stopped = ""
        self._total = 0
        self._over_output = False
        self._cond = threading.Condition()

    def feed(self, chunk: bytes) -> bool:
        """Add bytes read from the stream; False once the output cap is passed (stop reading)."""
        with self._cond:
            self._total += len(chunk)
            if self._total > self.max_output:
                # The first limit passed decides: a bot already flooding or past the line cap keeps
                # that verdict however long the referee took to read (a loaded machine).
                self._over_output = self._over_output or not (self._too_long or self._flooded or self._stopped)
                self._cond.notify_all()
                return False
            if self._too_long or self._flooded or self._stopped:
                return True  # the bot's fate is decided: count the bytes, keep nothing
            if b"\n" not in chunk:
                self._partial += chunk
            else:
                parts = chunk.split(b"\n")
                self._partial += parts[0]
                first = bytes(self._partial)
                self._partial = bytearray(parts[-1])
                if len(first) > self.max_line or max(map(len, parts)) > self.max_line:
                    self._too_long = True
                self._lines.append(first)
                self._lines.extend(parts[1:-1])
                if len(self._lines) > self.max_queued:
                    self._flooded = True
            if len(self._partial) > self.max_line:
                self._too_long = True
            self._cond.notify_all()
            return True

    def awaiting(self) -> bool:
        """Whether a reply may still be read from this stream (no limit passed, not stopped)."""
        return not (self._too_long or self._flooded or self._stopped or self._over_output)

    def stop(self, reason: str) -> None:
        """End the bot's output for the referee: every later `read_line` raises LineTooLong(reason)."""
        with self._cond:
            if not self._stopped:
                self._stopped = reason
            self._cond.notify_all()

    def close(self) -> None:
        """Mark end of stream."""
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def read_line(self, deadline: float) -> bytes | None:
        """Next complete line (without newline), or None if `deadline` (time.monotonic) passes first.

        Raises LineTooLong when the next line exceeds the cap (or the output cap is passed, or
        the buffer was stopped), LineFlood past the unread-line bound, BotGone at end of stream.
        """
        with self._cond:
            while True:
                if self._stopped:
                    raise LineTooLong(self._stopped)
                if self._over_output:
                    raise LineTooLong(f"wrote more than {self.max_output} bytes of output in one match")
                if self._lines:
                    line = self._lines.popleft()
                    if len(line) > self.max_line:
                        raise LineTooLong(f"line of {len(line)} bytes exceeds the {self.max_line}-byte limit")
                    return line
                if self._too_long:
                    raise LineTooLong(f"line longer than the {self.max_line}-byte limit")
                if self._flooded:
                    raise LineFlood(f"wrote more than {self.max_queued} lines nobody asked for")
                if self._eof:
                    raise BotGone("output closed")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)


class LogBuffer:
    """Keeps the first and last part of a stream (the bot's stderr log), dropping the middle.

    It also counts the lines the bot library writes for caught exceptions (all of them, also
    in the dropped middle) and takes the referee's request marks (`mark`). Past `max_bytes`
    in all, it keeps nothing more, `feed` returns False (stop reading) and `on_over` is called
    once with the reason (connections stop the bot's output with it: status "output").
    """

    def __init__(self, head: int = LOG_HEAD_BYTES, tail: int = LOG_TAIL_BYTES, max_bytes: int = MAX_LOG_BYTES,
                 on_over: Callable[[str], None] | None = None) -> None:
        self._head_cap = head
        self._tail_cap = tail
        self.max_bytes = max_bytes
        self.on_over = on_over
        self.over = False
        self._received = 0
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        self._lock = threading.Lock()
        self._line_start = b""  # the first bytes of the current line, while shorter than the mark
        self._line_checked = False  # the current line was already compared with the mark
        self._ends_line = True
        self._pending_mark = ""
        self.exceptions = 0
        self.first_exception = ""

    def feed(self, chunk: bytes) -> bool:
        """Add bytes of the log; False once past `max_bytes` (nothing more is kept)."""
        with self._lock:
            if self.over:
                return False
            self._received += len(chunk)
            if self._received > self.max_bytes:
                chunk = chunk[: len(chunk) - (self._received - self.max_bytes)]
                self.over = True
            if self._pending_mark and chunk:
                self._put_mark()
            self._scan(chunk)
            self._store(chunk)
            over = self.over
        if over:
            if self.on_over is not None:
                self.on_over(f"wrote more than {self.max_bytes} bytes to stderr in one match")
            return False
        return True

    def mark(self, text: str) -> None:
        """The referee's line `text` goes into the log, on a line of its own, before the next bytes
        the bot writes (a request during which the bot writes nothing leaves no mark)."""
        with self._lock:
            self._pending_mark = text

    def note(self, text: str) -> None:
        """The referee's line `text` goes into the log now (after the pending request mark, if any)."""
        with self._lock:
            if self.over:
                return
            if self._pending_mark:
                self._put_mark()  # the request's mark first: the note belongs to that request
            self._pending_mark = text
            self._put_mark()

    def _put_mark(self) -> None:
        line = ("" if self._ends_line else "\n") + self._pending_mark + "\n"
        self._pending_mark = ""
        self._store(line.encode("utf-8"))
        self._line_start, self._line_checked = b"", False

    def _scan(self, chunk: bytes) -> None:
        """Count lines starting with EXCEPTION_MARK; C-speed `count` even for a flood of short lines."""
        if not chunk:
            return
        first_nl = chunk.find(b"\n")
        if not self._line_checked:  # the current line began in an earlier chunk (or starts here)
            piece = chunk if first_nl < 0 else chunk[:first_nl]
            start = self._line_start + piece[: len(_MARK) - len(self._line_start)]
            if len(start) >= len(_MARK) or first_nl >= 0:
                self._line_checked = True
                if start == _MARK:
                    self._found(self._line_start + piece)
            else:
                self._line_start = start
        if first_nl < 0:
            return
        body = chunk[first_nl:]
        found = body.count(b"\n" + _MARK)
        if found:
            if not self.first_exception:
                at = body.find(b"\n" + _MARK) + 1
                end = body.find(b"\n", at)
                self._found(body[at:] if end < 0 else body[at:end])
                found -= 1
            self.exceptions += found
        rest = body[body.rfind(b"\n") + 1:]
        self._line_start = rest[: len(_MARK)]
        self._line_checked = len(rest) >= len(_MARK)

    def _found(self, line: bytes) -> None:
        self.exceptions += 1
        if not self.first_exception:
            self.first_exception = line[:400].decode("utf-8", "replace").rstrip()

    def _store(self, chunk: bytes) -> None:
        self._ends_line = chunk.endswith(b"\n")
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self._tail += chunk
        excess = len(self._tail) - self._tail_cap
        if excess > 0:
            self._dropped += excess
            del self._tail[:excess]

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return len(self._head) + len(self._tail) + self._dropped

    def text(self) -> str:
        """The kept log as text, with a marker where bytes were dropped."""
        with self._lock:
            head = bytes(self._head).decode("utf-8", "replace")
            tail = bytes(self._tail).decode("utf-8", "replace")
            text = f"{head}\n[... {self._dropped} bytes of log dropped ...]\n{tail}" if self._dropped else head + tail
            if self.over:
                text += f"\n[armada] the log stops here: more than {self.max_bytes} bytes of stderr in one match\n"
            return text


def _pending(fd: int) -> int:
    """Bytes waiting in the pipe `fd` reads from right now (FIONREAD); 0 when it cannot tell."""
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
    except OSError:
        return 0
    return max(0, count[0])


class LogPump:
    """Reads a bot's stderr fd into its LogBuffer; `mark` first reads what the pipe holds (D-R-9).

    The reader thread and `mark` take one lock around each read-and-feed, so no chunk is ever
    between the pipe and the buffer while a mark is placed: every byte the bot wrote before
    the referee asked for the mark is in the log before the mark. `mark` reads exactly the
    bytes the pipe held when it was called (FIONREAD), never spinning on a flood.
    """

    def __init__(self, log: LogBuffer, pause: float = LOG_READ_PAUSE_S) -> None:
        self.log = log
        self.pause = pause
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._done = False

    def run(self, fd: int) -> None:
        """Thread body: read `fd` to its end, or until the log's cap; the caller closes `fd` after."""
        with contextlib.suppress(OSError):
            os.set_blocking(fd, False)  # a read that `mark` emptied first must not block under the lock
        with self._lock:
            self._fd = fd
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        try:
            while not self._done:
                poller.poll()  # wait for bytes without holding the lock
                with self._lock:
                    if self._done:
                        break
                    try:
                        size = self._read_once(fd)
                    except BlockingIOError:
                        continue  # `mark` read them first
                if self.pause and 0 < size < READ_CHUNK:
                    time.sleep(self.pause)
        except OSError:
            pass
        finally:
            with self._lock:
                self._fd, self._done = None, True

    def mark(self, text: str) -> None:
        """Read the bytes `fd` holds now, then put the mark `text` (the bot's next bytes come after it)."""
        with self._lock:
            self._read_pending()
            self.log.mark(text)

    def note(self, text: str) -> None:
        """Read the bytes `fd` holds now, then write the referee's line `text` into the log."""
        with self._lock:
            self._read_pending()
            self.log.note(text)

    def _read_pending(self) -> None:
        """Under the lock: feed the log exactly the bytes the pipe holds now (FIONREAD)."""
        fd = self._fd
        if fd is not None and not self._done:
            left = _pending(fd)
            with contextlib.suppress(OSError):  # BlockingIOError: gone meanwhile
                while left > 0 and not self._done:
                    left -= self._read_once(fd, min(left, READ_CHUNK))

    def _read_once(self, fd: int, size: int = READ_CHUNK) -> int:
        """One read into the log, under the lock; at the stream's end or the log's cap, done."""
        chunk = os.read(fd, size)
        if not chunk or self.log.feed(chunk) is False:
            self._done = True
        return len(chunk)


@dataclass(frozen=True)
class LogNotes:
    """What the referee learnt from a bot's log: exceptions the bot library caught, and the first one's line."""

    exceptions: int = 0
    first_exception: str = ""


class BotConnection(ABC):
    """One running bot, as the referee sees it.

    Lifecycle: `start()`, then any number of `send()` / `read_line()`, then `close()`.
    `close()` must always be safe to call (also after a failed start) and must leave no
    process or container behind.
    """

    #: Display name of the connection (e.g. the bot's path); the bot may announce another in init.
    label: str = "bot"
    #: The bot's ARMADA_BOT_SEED (armada.referee.environment); the referee sets it before `start()`.
    bot_seed: int | None = None

    @abstractmethod
    def start(self) -> None:
        """Start the bot. Raises BotGone with a clear message if the bot cannot start, and
        Unavailable when what would run it is missing (not the bot's fault)."""

    @abstractmethod
    def send(self, line: bytes) -> None:
        """Write one protocol line (ending in b"\\n"). Raises BotGone if the bot's input is closed."""

    @abstractmethod
    def read_line(self, deadline: float) -> bytes | None:
        """Next stdout line before `deadline` (time.monotonic()), None on timeout.

        Raises BotGone at end of output and LineTooLong past the line cap.
        """

    @abstractmethod
    def log(self) -> str:
        """The bot's captured stderr (capped: first and last part)."""

    @abstractmethod
    def exit_info(self) -> ExitInfo:
        """How the bot ended so far (returncode None while it runs)."""

    @abstractmethod
    def close(self, grace: float = 1.0) -> ExitInfo:
        """Close the bot's stdin, give it `grace` seconds to exit, then kill everything it started."""

    def memory_peak_bytes(self) -> int | None:
        """The most memory the bot used so far, where the connection can tell (the sandbox), else None."""
        return None

    def mark(self, text: str) -> None:
        """Write the referee's line `text` (a request mark) into the bot's log; a no-op without a LogBuffer.

        With a `LogPump` (attribute `_log_pump`) the mark comes after all the bot wrote before it."""
        pump = getattr(self, "_log_pump", None)
        if isinstance(pump, LogPump):
            pump.mark(text)
            return
        buffer = getattr(self, "_log", None)
        if isinstance(buffer, LogBuffer):
            buffer.mark(text)

    def note(self, text: str) -> None:
        """Write the referee's line `text` into the bot's log now, under the current request's mark
        (a drawing past its limits, armada.drawing); a no-op without a LogBuffer."""
        pump = getattr(self, "_log_pump", None)
        if isinstance(pump, LogPump):
            pump.note(text)
            return
        buffer = getattr(self, "_log", None)
        if isinstance(buffer, LogBuffer):
            buffer.note(text)

    def log_notes(self) -> LogNotes:
        """The exceptions the bot library reported in the log (none known without a LogBuffer)."""
        buffer = getattr(self, "_log", None)
        if isinstance(buffer, LogBuffer):
            return LogNotes(buffer.exceptions, buffer.first_exception)
        return LogNotes()

    def __enter__(self) -> BotConnection:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
