"""The queue and job registry (armada_web.jobs.queues): every queue and task name is declared there
once, and read from there by the broker, the settings, the workers and the pages. The source
checks read the code with `ast` and the scripts as text (nothing is imported), and each is shown
to catch a violation on a small made-up file."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings

from armada_web.jobs import queues
from armada_web.runtime.config import Config, load

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "platform" / "armada_web"
REGISTRY = PACKAGE / "jobs" / "queues.py"
#: The one module that asks Celery's workers, and the one that reads the broker's lists.
WORKERS, BROKER = PACKAGE / "jobs" / "workers.py", PACKAGE / "jobs" / "broker.py"
#: Scripts and compose files that start workers: they ask `manage.py queues --worker KIND`.
SCRIPTS = [ROOT / "infra" / "up.sh", ROOT / "infra" / "compose.yml", ROOT / "infra" / "compose.worker.yml",
           ROOT / "infra" / "images" / "app" / "entrypoint.sh", ROOT / "README.md"]
SETTING_FIELDS = {q.setting for q in queues.QUEUES}


def written_elsewhere(path: Path) -> list[str]:
    """Queue and task names written in `path` instead of read from the registry."""
    problems = []
    tasks = {t.value for t in queues.Task}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in tasks:
                problems.append(f"{where} writes the task name {node.value!r}")
            if queues.PRIORITY_SEP in node.value:
                problems.append(f"{where} writes the broker's priority key")
        elif isinstance(node, ast.Attribute) and node.attr in SETTING_FIELDS:
            problems.append(f"{where} reads the queue setting {node.attr} (ask jobs.queues.name)")
        elif isinstance(node, ast.Attribute) and node.attr == "inspect" and path != WORKERS:
            problems.append(f"{where} asks the workers (jobs.workers.live)")
        elif isinstance(node, ast.Attribute) and node.attr in {"llen", "lrange"} and path != BROKER:
            problems.append(f"{where} reads a queue's list (jobs.broker)")
    return problems


def script_names(text: str) -> list[str]:
    """Queue names a script writes after `-Q` (a default or a list) instead of asking the registry."""
    return re.findall(r"-Q\s+\"?(?!\$\()[^\s\"]+", text) + re.findall(r"ARMADA_\w+_QUEUE:-\w+", text)


def platform_sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts and p != REGISTRY)


def test_no_queue_or_task_name_is_written_outside_the_registry():
    assert [problem for path in platform_sources() for problem in written_elsewhere(path)] == []


def test_the_scripts_ask_the_registry_for_a_workers_queues():
    for path in SCRIPTS:
        assert script_names(path.read_text(encoding="utf-8")) == [], path


def test_every_celery_task_is_in_the_registry():
    from armada_web.celery import app

    app.loader.import_default_modules()
    ours = {name for name in app.tasks if name.startswith("armada_web.")}
    assert ours == {t.value for t in queues.Task}


def test_every_queue_has_its_setting_and_the_settings_read_the_registry():
    fields = Config.__dataclass_fields__
    for queue in queues.QUEUES:
        assert queue.setting in fields, queue
        assert fields[queue.setting].metadata["env"] == f"ARMADA_{queue.role.upper()}_QUEUE"
    started = load()  # the settings as settings.py read them (this folder's tests change settings.ARMADA)
    assert queues.routes(started) == settings.CELERY_TASK_ROUTES
    assert queues.default_queue(started) == started.periodic_queue == settings.CELERY_TASK_DEFAULT_QUEUE
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert scheduled <= {t.value for t in queues.Task}


def test_names_follow_the_settings(armada):
    armada(finals_queue="f-1", matches_queue="m-1", periodic_queue="p-1", events_queue="e-1",
           challenges_queue="c-1")
    assert queues.worker_queues("matches") == ("f-1", "c-1", "e-1", "m-1")  # the finals first
    assert queues.names()[queues.Role.PERIODIC] == "p-1"
    assert queues.game_queues() == {"f-1", "c-1", "e-1", "m-1", settings.ARMADA.validation_queue}
    assert queues.redis_keys("m-1") == ["m-1", "m-1\x06\x163", "m-1\x06\x166", "m-1\x06\x169"]


def test_a_match_goes_to_its_kinds_queue(armada):
    from armada_web.matches.models import MatchKind
    from armada_web.matches.tasks import queue_for

    armada(finals_queue="f-2", matches_queue="m-2", events_queue="e-2", challenges_queue="c-2")
    assert [queue_for(kind) for kind in MatchKind] == ["m-2", "c-2", "f-2", "e-2"]


# -- the checks catch what they are for ---------------------------------------------------------


@pytest.mark.parametrize("source, found", [
    ('QUEUE = "armada_web.matches.tasks.run_match"\n', "writes the task name"),
    ('KEY = "matches\\x06\\x163"\n', "priority key"),
    ("def f(config):\n    return config.finals_queue\n", "reads the queue setting finals_queue"),
    ("def f(app):\n    return app.control.inspect().active_queues()\n", "asks the workers"),
    ("def f(r):\n    return r.llen('matches')\n", "reads a queue's list"),
])
def test_a_name_written_elsewhere_is_caught(tmp_path, source, found):
    path = tmp_path / "module.py"
    path.write_text(source)
    problems = written_elsewhere(path)
    assert len(problems) == 1 and found in problems[0]


def test_a_script_writing_queue_names_is_caught():
    assert script_names('celery worker -Q "finals,challenges" -n x') == ['-Q "finals,challenges']
    assert len(script_names('celery worker -Q "${ARMADA_PERIODIC_QUEUE:-celery}"')) == 2  # the -Q and the default
    assert script_names('celery worker -Q "$(queues_of matches)" -n x') == []
