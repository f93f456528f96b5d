"""Log lines (armada_web.runtime.logs): text by default, one JSON object a line with ARMADA_LOG_FORMAT=json,
and every line of a worker's task (Celery's own "received" and "succeeded" lines, ours, the
sandbox's threads') carries the task's match or version id (a real worker's: tests/live/test_logs_live.py)."""

from __future__ import annotations

import io
import json
import logging
import threading

from armada_web.runtime import logs


def capture(fmt: str) -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logs.ContextFilter())
    handler.setFormatter(logs.JsonFormatter() if fmt == "json" else logs.TextFormatter())
    logger = logging.getLogger(f"armada-test-{fmt}-{id(stream)}")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger, stream


def test_text_lines_end_with_their_context_and_json_lines_carry_it_as_fields():
    text, text_out = capture("text")
    as_json, json_out = capture("json")
    with logs.context(match=12, attempt=2):
        text.info("played %s", "well")
        as_json.info("played %s", "well")
    text.info("no context")
    line = text_out.getvalue().splitlines()
    assert line[0].endswith("played well [match=12 attempt=2]") and line[1].endswith(": no context")
    entry = json.loads(json_out.getvalue())
    assert entry["message"] == "played well" and entry["match"] == 12 and entry["attempt"] == 2
    assert entry["level"] == "INFO" and entry["time"].endswith("Z")


def test_an_exception_stays_one_json_line():
    logger, out = capture("json")
    try:
        raise ValueError("bad <value>")
    except ValueError:
        logger.exception("it failed")
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert "ValueError: bad <value>" in entry["exception"] and entry["message"] == "it failed"


def test_a_tasks_fields_reach_every_thread_and_celerys_own_lines():
    logs.name_task("tests.fake_match_task", "match")
    logger, out = capture("json")
    # Celery's "received" line (the worker's main process) names the task and its arguments
    logger.info("Task %(name)s[%(id)s] received", {"name": "tests.fake_match_task", "id": "t-1", "args": "(41,)"},
                extra={"data": {"name": "tests.fake_match_task", "id": "t-1", "args": "(41,)"}})
    logs.enter_task("tests.fake_match_task", "t-1", [41])
    try:
        logger.info("inside")
        worker = threading.Thread(target=lambda: logger.info("from the sandbox's thread"))
        worker.start()
        worker.join()
        logger.info("Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s",
                    {"name": "tests.fake_match_task", "id": "t-1", "runtime": 1.0, "return_value": "'finished'",
                     "args": "[41]", "kwargs": "{}"})
    finally:
        logs.leave_task()
    logger.info("after")
    entries = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [e.get("match") for e in entries] == [41, 41, 41, 41, None]
    assert entries[0]["task_id"] == "t-1" and entries[0]["message"] == "Task tests.fake_match_task[t-1] received"


def test_the_settings_choose_the_format(tmp_path):
    import os
    import subprocess
    import sys

    code = ("import django, logging; django.setup(); "
            "logging.getLogger('armada_web.test').warning('hello %s', 'there')")
    env = {**os.environ, "ARMADA_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "armada_web.settings"}
    json_run = subprocess.run([sys.executable, "-c", code], env={**env, "ARMADA_LOG_FORMAT": "json"},
                              capture_output=True, text=True, check=True)
    entry = json.loads(json_run.stderr.strip().splitlines()[-1])
    assert entry["message"] == "hello there" and entry["logger"] == "armada_web.test"
    text_run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert text_run.stderr.strip().endswith("WARNING armada_web.test: hello there")
