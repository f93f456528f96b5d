"""ProcessBot on its own: starting, bytes in and out, caps, exit information, closing."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from armada.referee.connection import BotGone, ExitInfo, LineTooLong
from armada.referee.process_bot import ProcessBot


def py(code: str, **kwargs) -> ProcessBot:
    return ProcessBot([sys.executable, "-c", code], label="inline", **kwargs)


def test_echo_round_trip_and_log():
    bot = py("import sys\nfor line in sys.stdin:\n"
             "    sys.stderr.write('got ' + line)\n    print(line.strip().upper(), flush=True)")
    bot.start()
    try:
        bot.send(b"hello\n")
        assert bot.read_line(time.monotonic() + 5) == b"HELLO"
        assert bot.read_line(time.monotonic() + 0.05) is None  # nothing more: timeout, not an error
        assert bot.exit_info() == ExitInfo()  # still running
    finally:
        info = bot.close(grace=2.0)
    assert info == ExitInfo(returncode=0)  # it exited by itself once stdin closed
    assert bot.log() == "got hello\n"


def test_missing_program_raises_bot_gone_with_reason():
    bot = ProcessBot(["/nonexistent/armada-bot"], label="ghost")
    with pytest.raises(BotGone, match="cannot run /nonexistent/armada-bot"):
        bot.start()
    assert bot.close() == ExitInfo()


def test_close_before_start_is_safe():
    assert ProcessBot([sys.executable, "-c", "pass"]).close() == ExitInfo()


def test_exit_code_is_seen_without_waiting_for_close():
    bot = py("import sys; sys.exit(5)")
    bot.start()
    try:
        with pytest.raises(BotGone):
            bot.read_line(time.monotonic() + 5)
        deadline = time.monotonic() + 2
        while bot.exit_info().returncode is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert bot.exit_info() == ExitInfo(returncode=5)
        with pytest.raises(BotGone):
            bot.send(b"x" * 200_000 + b"\n")  # more than a pipe holds: the write fails
    finally:
        assert bot.close() == ExitInfo(returncode=5)


def test_output_cap_is_line_too_long():
    # long lines: the byte cap comes long before the bound on unread lines (LineFlood)
    bot = py("import sys\nwhile True:\n    sys.stdout.write(('{}' + ' ' * 998 + '\\n') * 10)", max_output=100_000)
    bot.start()
    try:
        with pytest.raises(LineTooLong, match="more than 100000 bytes"):
            deadline = time.monotonic() + 5
            while True:  # a referee dropping stale lines keeps reading
                bot.read_line(deadline)
    finally:
        bot.close(grace=0.1)


def test_close_is_not_held_up_by_a_sender_blocked_on_a_full_pipe():
    bot = py("import time; time.sleep(60)")  # never reads its input
    bot.start()
    errors = []

    def flood():
        try:
            for _ in range(100):
                bot.send(b"x" * 65536)
        except BotGone as exc:
            errors.append(exc)

    sender = threading.Thread(target=flood, daemon=True)
    sender.start()
    time.sleep(0.2)
    assert sender.is_alive()  # blocked in write
    start = time.monotonic()
    info = bot.close(grace=0.3)
    assert time.monotonic() - start < 3.0
    assert info == ExitInfo(signal=9)
    sender.join(2)
    assert not sender.is_alive() and errors


def test_for_script_runs_in_the_scripts_folder(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text("import os\nprint(os.getcwd(), flush=True)\n")
    bot = ProcessBot.for_script(script)
    assert bot.label == str(script)
    bot.start()
    try:
        assert bot.read_line(time.monotonic() + 5) == str(tmp_path).encode()
    finally:
        bot.close()


def test_bad_argv_is_rejected():
    with pytest.raises(ValueError, match="non-empty list"):
        ProcessBot([])


def test_a_close_while_the_bot_starts_leaves_no_process_and_no_folder(monkeypatch):
    """A trial: Ctrl-C while the bots started (`close` from the referee's thread, the start still on
    its own) left the bot running and its private folder behind: the close saw no process yet."""
    import os
    import subprocess

    from armada.referee import process_bot

    real = subprocess.Popen
    entered = threading.Event()

    homes: list[str] = []

    def slow_popen(*args, **kwargs):
        homes.append(kwargs["env"]["HOME"])
        entered.set()
        time.sleep(0.3)  # the start is under way when the close comes
        return real(*args, **kwargs)

    monkeypatch.setattr(process_bot.subprocess, "Popen", slow_popen)
    bot = ProcessBot([sys.executable, "-c", "import time; time.sleep(60)"])
    failed: list[BaseException] = []

    def start() -> None:
        try:
            bot.start()
        except BotGone as exc:
            failed.append(exc)

    starter = threading.Thread(target=start)
    starter.start()
    assert entered.wait(5)
    bot.close(grace=0.1)
    starter.join(5)
    proc = bot._proc
    assert failed or (proc is not None and proc.poll() is not None)  # refused, or started and killed
    assert homes and not os.path.exists(homes[0])  # its private folder is gone too
