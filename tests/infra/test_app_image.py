"""The application image (infra/images/app): what decides a rebuild, and the image itself: Django's
checks and Celery start in it, as user armada, which reaches the mounted Docker socket through
its group; a worker refuses a sandbox folder that is not the host's folder of the same path."""

from __future__ import annotations

import os
import shutil
import uuid

import pytest

from tests.support.app_image import APP_IMAGE, ROOT, inputs, require_app_image

LABELS = {"armada.test": f"app-image-{uuid.uuid4().hex[:8]}"}


def copy_inputs(dest):
    for rel in inputs().input_files(ROOT):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, target)


def test_the_hash_follows_the_sources_and_not_the_bytecode(tmp_path):
    copy_inputs(tmp_path)
    module = inputs()
    base = module.inputs_hash(tmp_path)
    assert module.inputs_hash(tmp_path) == base
    (tmp_path / "platform/armada_web/__pycache__").mkdir(exist_ok=True)
    (tmp_path / "platform/armada_web/__pycache__/settings.cpython-311.pyc").write_bytes(b"junk")
    (tmp_path / "infra/images/app/build").mkdir()
    (tmp_path / "infra/images/app/build/pip.log").write_text("not an input")
    assert module.inputs_hash(tmp_path) == base
    for changed in ("platform/armada_web/urls.py", "sandbox/armada_sandbox/slots.py", "infra/gunicorn.conf.py",
                    "infra/images/app/entrypoint.sh"):
        path = tmp_path / changed
        original = path.read_text()
        path.write_text(original + "\n# changed\n")
        assert module.inputs_hash(tmp_path) != base, changed
        path.write_text(original)
    assert module.inputs_hash(tmp_path) == base


def test_the_pins_are_the_venvs_run_time_versions_without_our_packages():
    from importlib import metadata

    pins = dict(line.split("==") for line in inputs().pins().splitlines() if "==" in line)
    assert pins["Django"] == metadata.version("django")
    assert pins["gunicorn"] == metadata.version("gunicorn")
    assert "psycopg-binary" in pins and "celery" in pins  # extras followed: psycopg[binary], celery[redis]
    assert not {"armada", "armada-sandbox", "armada-platform"} & set(pins)
    assert not {"pytest", "ruff", "moto"} & set(pins)  # development tools stay out


def run(client, command, **options):
    """Run `command` in the app image to its end; (exit code, output)."""
    container = client.containers.run(APP_IMAGE, command, detach=True, labels=LABELS, **options)
    try:
        code = container.wait(timeout=120)["StatusCode"]
        return code, container.logs().decode(errors="replace")
    finally:
        container.remove(force=True, v=True)


@pytest.mark.docker
def test_manage_py_check_and_celery_start_as_the_unprivileged_user():
    client = require_app_image()
    code, out = run(client, ["sh", "-c", "id -un && manage.py check && celery --version"], network_mode="none",
                    environment={"SECRET_KEY": "app-image-test-" + "0123456789abcdef" * 3})  # (a key of its own)
    assert code == 0, out
    user, check, version = out.strip().splitlines()
    assert user == "armada"
    assert "no issues" in check
    assert version.split()[0].count(".") == 2  # e.g. "5.7.0 (collider)"


@pytest.mark.docker
def test_manage_py_names_itself_in_its_usage_lines():
    """`manage.py season create` without its arguments: the usage says `manage.py`, as the docs do."""
    client = require_app_image()
    code, out = run(client, ["manage.py", "season", "create"], network_mode="none",
                    environment={"SECRET_KEY": "app-image-test-" + "0123456789abcdef" * 3})
    assert code != 0, out
    assert "usage: manage.py season create" in out and "__main__" not in out, out


@pytest.mark.docker
def test_a_worker_reaches_the_engine_through_the_sockets_group_not_as_root():
    client = require_app_image()
    socket = "/var/run/docker.sock"
    if not os.path.exists(socket):
        from tests.support.services import missing

        missing(f"the engine is not at {socket}")
    script = "import os, docker; print(os.getuid(), os.stat('/var/run/docker.sock').st_gid in os.getgroups(), " \
             "docker.from_env().ping())"
    code, out = run(client, ["python", "-c", script], network_mode="none",
                    volumes={socket: {"bind": socket, "mode": "rw"}})
    assert (code, out.split()) == (0, ["10100", "True", "True"]), out


@pytest.mark.docker
def test_a_worker_refuses_a_sandbox_folder_not_at_the_host_path(tmp_path):
    client = require_app_image()
    socket = {"/var/run/docker.sock": {"bind": "/var/run/docker.sock", "mode": "rw"}}
    code, out = run(client, ["worker"], network_mode="none", volumes=socket)
    assert code == 1 and "ARMADA_SANDBOX_DIR is not set" in out, out
    elsewhere = {**socket, str(tmp_path): {"bind": "/srv/sandbox", "mode": "rw"}}
    code, out = run(client, ["worker"], network_mode="none", volumes=elsewhere,
                    environment={"ARMADA_SANDBOX_DIR": "/srv/sandbox"})
    assert code == 1 and f"mounted from {tmp_path}" in out, out
    code, out = run(client, ["worker"], network_mode="none", volumes=socket,
                    environment={"ARMADA_SANDBOX_DIR": "/srv/none"})
    assert code == 1 and "/srv/none is not mounted from the host" in out, out
    # With the machine's network (a worker host on a second engine, docs/deploy.md) the container
    # has the machine's host name: it is found by its own id, and still refused (was: not checked).
    code, out = run(client, ["worker"], network_mode="host", volumes=elsewhere,
                    environment={"ARMADA_SANDBOX_DIR": "/srv/sandbox"})
    assert code == 1 and f"mounted from {tmp_path}" in out, out


@pytest.mark.docker
def test_a_worker_refuses_a_bad_concurrency_and_a_database_that_does_not_answer(tmp_path):
    """A worker host whose DATABASE_URL is wrong used to start, be counted live and take matches
    from the queues, failing every one; `MATCH_CONCURRENCY=two` failed in Celery's words, naming
    `--concurrency`. Both now stop the worker before Celery starts, saying which setting."""
    client = require_app_image()
    volumes = {"/var/run/docker.sock": {"bind": "/var/run/docker.sock", "mode": "rw"},
               str(tmp_path): {"bind": str(tmp_path), "mode": "rw"}}
    env = {"ARMADA_SANDBOX_DIR": str(tmp_path), "SECRET_KEY": "app-image-test-" + "0123456789abcdef" * 3}
    code, out = run(client, ["worker", "matches"], network_mode="none", volumes=volumes,
                    environment={**env, "ARMADA_WORKER_CONCURRENCY": "two"})
    assert code == 1 and "must be a whole number of processes, got 'two'" in out, out
    code, out = run(client, ["worker", "matches"], network_mode="none", volumes=volumes,
                    environment={**env, "ARMADA_SANDBOX_PURPOSE": "foo"})  # it played on, with no warm pool
    assert code == 1 and "ARMADA_SANDBOX_PURPOSE must be match or validation, got 'foo'" in out, out
    assert "usage:" not in out and "celery@" not in out
    code, out = run(client, ["worker", "matches"], network_mode="none", volumes=volumes,
                    environment={**env, "DATABASE_URL": "postgresql://armada:wrong@127.0.0.1:1/armada"})
    assert code == 1 and "database: FAIL" in out, out
    assert "the worker does not start: its database does not answer (DATABASE_URL)" in out, out
    assert "celery@" not in out and "ready." not in out  # Celery never started
