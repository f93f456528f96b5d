"""`make up`'s logs (issue 20): appended and rotated by size (infra/logpipe.py, the logging library's
RotatingFileHandler), never truncated when the site starts again."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIPE = ROOT / "infra" / "logpipe.py"


def feed(log: Path, text: str, *args: str) -> None:
    done = subprocess.run([sys.executable, str(PIPE), str(log), *args], input=text.encode(), timeout=30, check=False)
    assert done.returncode == 0


def test_lines_are_appended_across_starts_and_rotated_by_size(tmp_path):
    log = tmp_path / "log" / "web.log"
    feed(log, "first run\ntraceback of the crash\n")
    feed(log, "second run\n")  # a new start: the lines of the one before are still there
    assert log.read_text() == "first run\ntraceback of the crash\nsecond run\n"
    feed(log, "".join(f"line {n:05d} of a long run\n" for n in range(400)), "--max-bytes", "2048", "--backups", "2")
    kept = sorted(path.name for path in log.parent.iterdir())
    assert kept == ["web.log", "web.log.1", "web.log.2"]  # two old files kept, older ones dropped
    assert all(path.stat().st_size <= 2048 for path in log.parent.iterdir())
    assert log.read_text().endswith("line 00399 of a long run\n")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_does_not_end_the_pipe_before_its_writer(tmp_path, stop):
    """Ctrl-C, or a TERM to the process group (a chaos trial), reaches the whole process group: the
    pipe still writes what the stopping process says."""
    log = tmp_path / "beat.log"
    pipe = subprocess.Popen([sys.executable, str(PIPE), str(log)], stdin=subprocess.PIPE)
    assert pipe.stdin is not None
    pipe.stdin.write(b"running\n")
    pipe.stdin.flush()
    time.sleep(0.5)
    pipe.send_signal(stop)
    pipe.stdin.write(b"worker: Warm shutdown (MainProcess)\n")
    pipe.stdin.close()
    assert pipe.wait(10) == 0
    assert log.read_text() == "running\nworker: Warm shutdown (MainProcess)\n"


def test_make_up_never_truncates_a_log():
    """Every process infra/up.sh leaves running writes through the pipe; none redirects into a log
    file with `>`. (The one-off steps it runs beside the migration, each waited for by its pid,
    write to the terminal.)"""
    script = (ROOT / "infra" / "up.sh").read_text()
    assert not re.search(r'>\s*"?\$LOG_DIR', script), "a redirection truncates a log"
    # (each at the start of a line, or indented in its `start_NAME` function)
    started = re.findall(r"^[ \t]*((?:\S+=\S+ \\\n[ \t]*)?\"\$(?:VENV/bin/(?:celery|gunicorn)|PY)\"[^\n]*"
                         r"(?:\\\n[^\n]*)*&)\n(?:[ \t]*(\w+)=\$!\n)?", script, re.M)
    waited = [command for command, pid in started if pid and f'wait "${pid}"' in script]
    staying = [command for command, pid in started if command not in waited]
    assert len(staying) >= 5 and all("log_pipe" in command for command in staying), staying
    assert all("manage.py" in command for command in waited), waited
