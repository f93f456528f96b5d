"""`python -m armada_web.logpipe FILE`: append standard input to FILE, rotating it by size.

`make up` pipes each process's output (web server, workers, beat: their log lines, and whatever
they print, tracebacks included) through one of these, so a log is never truncated when the site
starts again: lines are appended, and the file is rotated with the logging library's
`RotatingFileHandler` (FILE.1, FILE.2, ...) once it reaches ARMADA_LOG_MAX_BYTES, keeping
ARMADA_LOG_BACKUPS old files. One writer per file, so the rotation is safe however many processes
(Celery's children, the web server's workers) write to the pipe. It ends when its input ends.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from logging.handlers import RotatingFileHandler

from armada_web.config import ConfigError, load


def handler(path: str, max_bytes: int, backups: int) -> RotatingFileHandler:
    """The rotating handler of `path`: lines as they came (no prefix), appended, flushed at once."""
    out = RotatingFileHandler(path, mode="a", maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
    out.setFormatter(logging.Formatter("%(message)s"))
    return out


def pump(source: object, out: logging.Handler) -> int:
    """Copy every line of binary stream `source` to `out`; returns the lines copied."""
    lines = 0
    for raw in iter(source.readline, b""):  # type: ignore[attr-defined]
        text = raw.decode("utf-8", errors="replace").rstrip("\n")
        out.emit(logging.LogRecord("logpipe", logging.INFO, "", 0, text, None, None))
        lines += 1
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m armada_web.logpipe FILE  (appends standard input to FILE, rotated)", file=sys.stderr)
        return 2
    try:
        config = load()
    except ConfigError as exc:
        print(f"armada: {exc}", file=sys.stderr)
        return 2
    os.makedirs(os.path.dirname(os.path.abspath(args[0])), exist_ok=True)
    out = handler(args[0], config.log_max_bytes, config.log_backups)
    # Ctrl-C reaches the whole process group: the pipe keeps reading until its writer has stopped
    # (and said so), then ends with its input.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pump(sys.stdin.buffer, out)
    finally:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
