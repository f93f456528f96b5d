"""The stream buffers every connection shares: line cap, total output cap, capped log, drain."""

import os
import threading
import time

import pytest

from armada.referee.connection import BotGone, LineBuffer, LineTooLong, LogBuffer, drain


def test_lines_split_across_chunks_and_end_of_stream():
    buf = LineBuffer()
    buf.feed(b'{"id": 0}\n{"id"')
    buf.feed(b": 1}\n")
    buf.close()
    assert buf.read_line(time.monotonic() + 1) == b'{"id": 0}'
    assert buf.read_line(time.monotonic() + 1) == b'{"id": 1}'
    with pytest.raises(BotGone):
        buf.read_line(time.monotonic() + 1)


def test_a_line_over_the_cap_is_too_long():
    buf = LineBuffer(max_line=8)
    buf.feed(b"123456789")
    with pytest.raises(LineTooLong, match="8-byte limit"):
        buf.read_line(time.monotonic() + 1)


def test_output_past_the_match_cap_is_dropped_and_reported():
    """D-R-3: past the total cap the stream is still drained, but the bot gets status output."""
    buf = LineBuffer(max_line=100, max_output=50)
    for _ in range(10):
        buf.feed(b"x" * 9 + b"\n")
    with pytest.raises(LineTooLong, match="more than 50 bytes of output"):
        buf.read_line(time.monotonic() + 1)


def test_waiting_reader_is_woken_when_the_cap_is_passed():
    buf = LineBuffer(max_line=100, max_output=10)
    buf.feed(b"y" * 11)  # no newline: only the cap can end the wait
    start = time.monotonic()
    with pytest.raises(LineTooLong):
        buf.read_line(time.monotonic() + 5)
    assert time.monotonic() - start < 1


def test_log_keeps_head_and_tail():
    log = LogBuffer(head=4, tail=4)
    log.feed(b"abcdefghijkl")
    assert log.text() == "abcd\n[... 4 bytes of log dropped ...]\nijkl"
    assert log.total_bytes == 12


def test_drain_reads_a_pipe_to_its_end():
    read_fd, write_fd = os.pipe()

    def writer():
        os.write(write_fd, b"a" * 200_000)  # more than a pipe holds: drain must read while it writes
        os.close(write_fd)

    thread = threading.Thread(target=writer)
    thread.start()
    got = bytearray()
    drain(read_fd, got.extend)
    thread.join(5)
    os.close(read_fd)
    assert len(got) == 200_000


def test_log_buffer_counts_the_library_exception_lines_however_the_bytes_arrive():
    # D-R-10: every `[armada] exception caught` line is counted, also across chunk borders and past the cap
    import random

    from armada.referee.connection import LogBuffer

    mark = b"[armada] exception caught (turn 3, scout id 5): ZeroDivisionError: x\n"
    for trial in range(200):
        rnd = random.Random(trial)
        parts, expected = [], 0
        for _ in range(rnd.randint(0, 40)):
            r = rnd.random()
            if r < 0.3:
                parts.append(mark)
                expected += 1
            elif r < 0.45:
                parts.append(b"x[armada] exception caught, not at a line start\n")
            elif r < 0.6:
                parts.append(b"[armada] exception\n")  # a shorter line, not the mark
            else:
                parts.append(b"hello world\n" * rnd.randint(1, 3))
        data = b"".join(parts)
        buffer = LogBuffer(10, 10)  # tiny caps: counting does not depend on what is kept
        pos = 0
        while pos < len(data):
            size = rnd.randint(1, 30)
            buffer.feed(data[pos:pos + size])
            pos += size
        assert buffer.exceptions == expected, trial
        assert bool(buffer.first_exception) == bool(expected)


def test_log_buffer_mark_goes_before_the_next_bytes_only():
    # D-R-9: a request during which the bot writes nothing leaves no mark
    from armada.referee.connection import LogBuffer

    buffer = LogBuffer()
    buffer.mark("[armada] --- request 1: scout, turn 1 ---")
    buffer.mark("[armada] --- request 2: command, turn 1 ---")
    buffer.feed(b"partial")
    buffer.mark("[armada] --- request 3: scout, turn 2 ---")
    buffer.feed(b" line\n")
    assert buffer.text() == ("[armada] --- request 2: command, turn 1 ---\npartial\n"
                             "[armada] --- request 3: scout, turn 2 ---\n line\n")


def test_feed_is_linear_in_the_bytes_however_many_lines_wait():
    """Issue 12: each chunk used to rescan every queued line (quadratic under a stale-line flood)."""
    buf = LineBuffer(max_queued=10**6)
    began = time.process_time()
    for _ in range(30_000):
        buf.feed(b'{"id": 0}\n')
    assert time.process_time() - began < 1.5  # quadratic: 450 million length checks, minutes
    assert buf.read_line(time.monotonic() + 1) == b'{"id": 0}'


def test_a_long_line_split_over_many_chunks_is_still_too_long():
    buf = LineBuffer(max_line=100)
    buf.feed(b"ok\n")
    for _ in range(20):
        buf.feed(b"x" * 10)
    assert buf.read_line(time.monotonic() + 1) == b"ok"
    with pytest.raises(LineTooLong, match="100-byte limit"):
        buf.read_line(time.monotonic() + 1)


def test_too_many_unread_lines_is_a_flood():
    from armada.referee.connection import LineFlood

    buf = LineBuffer(max_queued=50)
    for _ in range(10):
        buf.feed(b'{"id": 0}\n' * 10)
    got = 0
    with pytest.raises(LineFlood, match="more than 50 lines"):
        while True:
            assert buf.read_line(time.monotonic() + 1) == b'{"id": 0}'
            got += 1
    assert 50 < got <= 60  # what came before the bound is read; the rest was only counted


def test_a_flood_stays_a_flood_when_the_reader_comes_after_the_output_cap():
    """tests/sandbox's line flooder under the whole suite: it wrote 64 MiB of stale lines before
    the starved referee read one, and was judged on the output cap instead of its flood."""
    from armada.referee.connection import LineFlood

    buf = LineBuffer(max_queued=50, max_output=2_000)
    fed = [buf.feed(b'{"id": 0}\n' * 10) for _ in range(30)]  # 3,000 bytes before any read
    assert fed[-1] is False  # past the output cap: stop reading
    with pytest.raises(LineFlood, match="more than 50 lines"):
        while True:
            assert buf.read_line(time.monotonic() + 1) == b'{"id": 0}'
    long = LineBuffer(max_line=8, max_output=100)
    long.feed(b"123456789")
    long.feed(b"123456789" * 20)
    with pytest.raises(LineTooLong, match="8-byte limit"):  # the line cap came first
        long.read_line(time.monotonic() + 1)


def test_past_the_output_cap_feed_says_stop_reading():
    buf = LineBuffer(max_line=100, max_output=50)
    assert buf.feed(b"x" * 9 + b"\n") is True
    assert buf.feed(b"y" * 60) is False


def test_a_stopped_buffer_raises_the_reason_even_with_lines_waiting():
    buf = LineBuffer()
    buf.feed(b'{"id": 1}\n')
    buf.stop("wrote more than 10 bytes to stderr in one match")
    with pytest.raises(LineTooLong, match="to stderr"):
        buf.read_line(time.monotonic() + 1)


def test_log_past_its_cap_keeps_head_and_tail_and_stops_the_bot():
    reasons = []
    log = LogBuffer(head=8, tail=8, max_bytes=100, on_over=reasons.append)
    assert log.feed(b"HEAD....." + b"m" * 80) is True
    assert log.feed(b"m" * 5 + b"....TAIL" + b"z" * 50) is False
    assert reasons == ["wrote more than 100 bytes to stderr in one match"]
    text = log.text()
    assert text.startswith("HEAD....") and "bytes of log dropped" in text
    assert "\nmm....TA\n[armada] the log stops here" in text  # the tail ends at the cap
    assert text.rstrip().endswith("more than 100 bytes of stderr in one match")
    assert log.feed(b"more") is False and reasons == [reasons[0]]


def test_drain_stops_when_feed_says_so_and_pauses_on_small_reads():
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"abc")
    seen = []

    def feed(chunk):
        seen.append(chunk)
        return False

    drain(read_fd, feed, pause=0.001)  # returns without waiting for the end of the stream
    os.close(write_fd)
    os.close(read_fd)
    assert seen == [b"abc"]


class _SlowLog(LogBuffer):
    """A log whose feed is slow: the reader thread sits between its read and its feed."""

    def __init__(self) -> None:
        super().__init__()
        self.reading = threading.Event()

    def feed(self, chunk: bytes) -> bool:
        self.reading.set()
        time.sleep(0.05)
        return super().feed(chunk)


def test_log_pump_puts_a_mark_after_everything_written_before_it():
    """D-R-9: a line read from the pipe but not yet fed used to land under the next request's mark."""
    from armada.referee.connection import LogPump

    read, write = os.pipe()
    log = _SlowLog()
    pump = LogPump(log, pause=0)
    thread = threading.Thread(target=pump.run, args=(read,), daemon=True)
    thread.start()
    try:
        os.write(write, b"thinking about turn 3\n")
        assert log.reading.wait(2)  # the thread has read the line and is feeding it
        pump.mark("[armada] --- request 4: turn, turn 4 ---")
        os.write(write, b"thinking about turn 4\n")
        time.sleep(0.2)
    finally:
        os.close(write)
        thread.join(2)
        os.close(read)
    assert log.text() == ("thinking about turn 3\n[armada] --- request 4: turn, turn 4 ---\n"
                          "thinking about turn 4\n")


def test_log_pump_mark_reads_what_the_pipe_holds_and_a_flood_cannot_stall_it():
    from armada.referee.connection import LogPump

    read, write = os.pipe()
    os.set_blocking(write, False)
    log = LogBuffer(head=1 << 20)
    pump = LogPump(log, pause=0)
    pump._fd = read  # as if its thread were running but had not been scheduled yet
    os.write(write, b"early line\n")
    pump.mark("[armada] --- request 1: turn, turn 1 ---")
    assert log.text() == "early line\n"  # read; the mark waits for the bot's next bytes
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            try:
                os.write(write, b"x" * 16)
            except BlockingIOError:
                time.sleep(0)

    flooder = threading.Thread(target=flood, daemon=True)
    flooder.start()
    try:
        time.sleep(0.05)
        began = time.thread_time()  # this thread's CPU only (not the flooder's)
        for _ in range(20):
            pump.mark("[armada] --- request 2: turn, turn 2 ---")
        # each mark reads what the pipe held when it was called (at most 64 KiB), no spinning
        assert time.thread_time() - began < 0.5
        assert log.total_bytes <= len("early line\n") + 21 * 65536 + 2 * 40
    finally:
        stop.set()
        flooder.join(2)
        os.close(write)
        os.close(read)


def test_a_stdout_drain_pauses_only_inside_a_line(monkeypatch):
    """A reply trickled a byte at a time is read in few pieces (the referee's CPU is not the bot's
    to spend); a read that ends a line is never followed by a pause."""
    from armada.referee import connection

    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"ab")
    pauses = []

    def sleep(seconds):  # the bot writes the rest of its line while the reader pauses, then ends
        pauses.append(seconds)
        os.write(write_fd, b"c\n")
        os.close(write_fd)

    monkeypatch.setattr(connection.time, "sleep", sleep)
    seen = []
    drain(read_fd, seen.append, 0.001, lines=lambda: True)
    os.close(read_fd)
    assert seen[0] == b"ab" and b"".join(seen) == b"abc\n" and pauses == [0.001]  # no pause after "c\n"


def test_a_trickled_reply_costs_the_reader_few_reads():
    """Measured: a writer sending a byte at a time for 0.5 s; the reader's reads with the stdout
    pause are far fewer than without (about 1000 a second at most)."""
    import subprocess
    import sys

    from armada.referee.connection import STDOUT_READ_PAUSE_S

    writer = ("import os, time\nend = time.monotonic() + 0.5\n"
              "while time.monotonic() < end: os.write(1, b'x')\nos.write(1, b'\\n')\n")
    counts = {}
    for pause in (0.0, STDOUT_READ_PAUSE_S):
        bot = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE)
        reads = []
        drain(bot.stdout.fileno(), reads.append, pause, lines=lambda: True)
        bot.wait()
        bot.stdout.close()
        assert b"".join(reads).endswith(b"x\n")
        counts[pause] = len(reads)
    assert counts[STDOUT_READ_PAUSE_S] <= 600 and counts[STDOUT_READ_PAUSE_S] * 5 < counts[0.0], counts


def test_a_bot_writing_newlines_a_byte_at_a_time_gets_the_pause_once_flooded(monkeypatch):
    """A read ending a line skips the pause so that a reply is never held back; a bot writing
    empty lines a byte at a time ends every read with one. Once its output's fate is decided
    (flooded: no reply is awaited from it) it must pay the pause like any trickle."""
    from armada.referee import connection

    read_fd, write_fd = os.pipe()
    buffer = LineBuffer(max_queued=2)
    pauses = []
    monkeypatch.setattr(connection.time, "sleep", pauses.append)
    reads = []

    def feed(chunk):  # the bot writes its next newline once the reader took the last one
        reads.append(chunk)
        result = buffer.feed(chunk)
        if len(reads) < 50:
            os.write(write_fd, b"\n")
        elif len(reads) == 50:
            os.close(write_fd)
        return result

    os.write(write_fd, b"\n")
    drain(read_fd, feed, 0.001, lines=buffer.awaiting)
    os.close(read_fd)
    assert len(reads) == 50 and len(pauses) >= 45, (len(reads), len(pauses))
