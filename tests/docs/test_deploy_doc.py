"""docs/deploy.md's table of environment variables is complete and true: its `settings` rows are
exactly `armada_web.runtime.config.variables()` (name, default, meaning), and every variable the compose
files, `make up`, the app image's entrypoint and checks, gunicorn's settings and the second engine's
script read has a row."""

from __future__ import annotations

import re
from pathlib import Path

from armada_web.runtime.config import table_rows, variables

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"
#: The files whose variables an organiser may set; `${NAME` (shell, compose) and environ.get("NAME").
READERS = ["infra/compose.yml", "infra/compose.worker.yml", "infra/up.sh", "infra/images/app/entrypoint.sh",
           "infra/images/app/checks.py", "infra/gunicorn.conf.py", "infra/dockerd-second.sh"]
#: Shell variables of those scripts that are theirs, not the organiser's.
INTERNAL = {"URL"}


def table() -> list[str]:
    text = DOC.read_text()
    body = text.split("<!-- variables -->", 1)[1].split("<!-- /variables -->", 1)[0]
    return [line for line in body.strip().splitlines()[2:]]


def documented() -> set[str]:
    names: set[str] = set()
    for line in table():
        names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1]))
    return names


def test_the_settings_rows_are_the_settings_objects_variables():
    rows = [line for line in table() if line.split("|")[3].strip() == "settings"]
    assert rows == table_rows(), "regenerate them with: .venv/bin/python -m armada_web.runtime.config"
    assert len(rows) == len(variables())


def test_every_variable_the_infrastructure_reads_has_a_row():
    read: set[str] = set()
    for name in READERS:
        text = (ROOT / name).read_text()
        read |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", text))
        read |= set(re.findall(r"environ(?:\.get)?[\[(]\"([A-Z][A-Z0-9_]*)\"", text))
        read |= set(re.findall(r"_int\(\"([A-Z][A-Z0-9_]*)\"", text))
    missing = sorted(read - INTERNAL - documented())
    assert not missing, f"add these to docs/deploy.md's table: {missing}"
    assert {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION", "ARMADA_BOT_SEED_KEY",
            "ARMADA_SANDBOX_WARM_PAIRS", "ARMADA_SANDBOX_SLOT_DIR", "DOCKER_HOST"} <= documented()


def test_every_variable_of_the_env_example_has_a_row():
    """infra/deploy.env.example (what an organiser copies) names nothing the table does not explain,
    its commented-out lines included; the first start's variables among them (issue 30)."""
    text = (ROOT / "infra" / "deploy.env.example").read_text()
    named = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", text, re.MULTILINE))
    assert {"ARMADA_HTTPS", "ARMADA_POSTGRES_PORT", "ARMADA_REDIS_PORT", "ARMADA_S3_CREATE_BUCKET", "ARMADA_DEMO",
            "DJANGO_SUPERUSER_USERNAME", "DJANGO_SUPERUSER_EMAIL", "DJANGO_SUPERUSER_PASSWORD"} <= named
    missing = sorted(named - documented())
    assert not missing, f"add these to docs/deploy.md's table: {missing}"


def test_each_variable_has_one_row():
    names = [name for line in table() for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1])]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_restoring_onto_a_new_compose_deployment_replaces_its_staff_account():
    """A new deployment's first `up` makes the staff account of infra/.env, so `restore` without
    --replace refuses it as not empty (tried: "this deployment is not empty (3 rows, 0 stored
    files)"); the docs' commands must be the ones that work, with the workers stopped meanwhile."""
    text = DOC.read_text()
    section = text.split("To restore onto a new deployment", 1)[1].split("With `make up`", 1)[0]
    assert "exec web manage.py restore --replace /var/lib/armada/data/" in section
    stop = section.index("stop beat worker-matches worker-validation worker")
    assert stop < section.index("restore --replace") < section.index("start beat worker-matches")
