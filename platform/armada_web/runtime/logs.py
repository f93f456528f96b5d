"""The site's log lines: text (the default) or one JSON object a line (ARMADA_LOG_FORMAT=json), each
carrying the context of the work it belongs to (the match or version id of a worker's task, the
id of a server error).

- `context(**fields)`: fields added to every line logged inside the block (this thread).
- A worker's task: `name_task(task, field)` says which argument names it (run_match -> match);
  Celery's task_prerun/postrun (armada_web.celery) call `enter_task`/`leave_task`, which set the
  fields for the whole process (a worker process runs one task at a time, and the sandbox's
  threads log too), and `ContextFilter` also reads the id from Celery's own "received" and
  "succeeded" lines, so every line of a task carries it.
- A server error: the 500 handler (armada_web.pages.errors) gives the request an id, which the
  line Django logs for it carries as `error_id`.
- `logging_config(fmt, level)`: the LOGGING dict of settings.py (and of the Celery workers).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

_fields: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("armada_log_fields", default=None)
#: The running task's fields (process-wide: threads started by the task log with them too).
_task: dict[str, Any] = {}
#: Task name -> the context field its first argument is (`name_task`).
_TASK_FIELDS: dict[str, str] = {}
#: What a log record's own attributes are (everything else on it was given as `extra`).
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}
#: Fields added by the filter, in the order a text line shows them.
CONTEXT_FIELDS = ("match", "version", "attempt", "error_id", "task_id")


@contextlib.contextmanager
def context(**fields: Any) -> Iterator[None]:
    """Every line logged in this block (in this thread) carries `fields`."""
    token = _fields.set({**(_fields.get() or {}), **fields})
    try:
        yield
    finally:
        _fields.reset(token)


def name_task(task: str, field: str) -> None:
    """Lines of task `task` carry its first argument as `field` (e.g. "match")."""
    _TASK_FIELDS[task] = field


def _first_id(args: Any) -> int | None:
    if isinstance(args, list | tuple) and args and isinstance(args[0], int):
        return int(args[0])
    found = re.match(r"[\[(]\s*(\d+)", str(args or ""))
    return int(found.group(1)) if found else None


def enter_task(name: str, task_id: str, args: Any) -> None:
    """A worker starts task `name` (Celery's task_prerun)."""
    _task.clear()
    field = _TASK_FIELDS.get(name)
    value = _first_id(args)
    if field and value is not None:
        _task[field] = value
    _task["task_id"] = task_id


def leave_task() -> None:
    """The task has ended (Celery's task_postrun)."""
    _task.clear()


def current() -> dict[str, Any]:
    """The fields a line logged here and now carries."""
    return {**_task, **(_fields.get() or {})}


class ContextFilter(logging.Filter):
    """Adds `context` (a dict) to every record: the current fields, the id of Celery's
    received/succeeded lines, a server error's id."""

    def filter(self, record: logging.LogRecord) -> bool:
        fields = current()
        data = getattr(record, "data", None)
        if not isinstance(data, dict) and isinstance(record.args, dict):
            data = record.args
        if isinstance(data, dict) and data.get("name") in _TASK_FIELDS:
            value = _first_id(data.get("args"))
            if value is not None:
                fields.setdefault(_TASK_FIELDS[str(data["name"])], value)
            if data.get("id"):
                fields.setdefault("task_id", str(data["id"]))
        request = getattr(record, "request", None)
        error_id = getattr(request, "armada_error_id", None)
        if error_id:
            fields["error_id"] = error_id
        record.context = fields
        return True


def _context_of(record: logging.LogRecord) -> dict[str, Any]:
    return dict(getattr(record, "context", None) or {})


class TextFormatter(logging.Formatter):
    """`time level logger: message [match=12 attempt=1]`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = _context_of(record)
        if not fields:
            return line
        ordered = [k for k in CONTEXT_FIELDS if k in fields] + sorted(set(fields) - set(CONTEXT_FIELDS))
        tail = " ".join(f"{key}={fields[key]}" for key in ordered if key != "task_id")
        if not tail:
            return line
        first, newline, rest = line.partition("\n")
        return f"{first} [{tail}]{newline}{rest}"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, the context fields, the exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        entry.update(_context_of(record))
        status = getattr(record, "status_code", None)
        if isinstance(status, int):
            entry["status"] = status
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, default=str, ensure_ascii=False)


def logging_config(fmt: str, level: str) -> dict[str, Any]:
    """Django's LOGGING: every line to standard error, formatted as `fmt` ("text" or "json")."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "armada_web.runtime.logs.ContextFilter"}},
        "formatters": {"line": {"()": f"armada_web.runtime.logs.{'Json' if fmt == 'json' else 'Text'}Formatter"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line", "filters": ["context"]}},
        "root": {"handlers": ["console"], "level": level},
        # Django's own loggers send to the root (its default handlers print only with DEBUG on).
        "loggers": {"django": {"handlers": [], "level": level, "propagate": True}},
    }
