"""`python3 infra/logpipe.py FILE --max-bytes N --backups K`: append standard input to FILE,
rotating it by size.

`make up` pipes each process's output (web server, workers, beat: their log lines, and whatever
they print, tracebacks included) through one of these, so a log is never truncated when the site
starts again: lines are appended, and the file is rotated with the logging library's
`RotatingFileHandler` (FILE.1, FILE.2, ...) once it reaches N bytes, keeping K old files (the
settings ARMADA_LOG_MAX_BYTES and ARMADA_LOG_BACKUPS, which infra/up.sh reads once and passes on).
One writer per file, so the rotation is safe however many processes (Celery's children, the web
server's workers) write to the pipe. It ends when its input ends. Standard library only, outside
the site's package: it starts in a fraction of the time the site takes to import.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from logging.handlers import RotatingFileHandler
from typing import BinaryIO


def handler(path: str, max_bytes: int, backups: int) -> RotatingFileHandler:
    """The rotating handler of `path`: lines as they came (no prefix), appended, flushed at once."""
    out = RotatingFileHandler(path, mode="a", maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
    out.setFormatter(logging.Formatter("%(message)s"))
    return out


def pump(source: BinaryIO, out: logging.Handler) -> int:
    """Copy every line of binary stream `source` to `out`; returns the lines copied."""
    lines = 0
    for raw in iter(source.readline, b""):
        text = raw.decode("utf-8", errors="replace").rstrip("\n")
        out.emit(logging.LogRecord("logpipe", logging.INFO, "", 0, text, None, None))
        lines += 1
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="infra/logpipe.py",
                                     description="append standard input to FILE, rotated by size")
    parser.add_argument("file")
    parser.add_argument("--max-bytes", type=int, default=10 * 1024 * 1024)
    parser.add_argument("--backups", type=int, default=5)
    args = parser.parse_args(argv)
    if args.max_bytes < 1024 or args.backups < 1:
        parser.error("--max-bytes must be at least 1024 and --backups at least 1")
    os.makedirs(os.path.dirname(os.path.abspath(args.file)), exist_ok=True)
    out = handler(args.file, args.max_bytes, args.backups)
    # Ctrl-C reaches the whole process group, and so does a TERM to it (a service manager's stop; a
    # chaos trial's pipes died first, and the stopping workers' last lines with them): the pipe
    # keeps reading until its writer has stopped (and said so), then ends with its input.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        pump(sys.stdin.buffer, out)
    finally:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
