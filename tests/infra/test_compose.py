"""The compose files (infra/compose.yml: one host; infra/compose.worker.yml: an extra worker host).

`docker-compose config` (Debian's docker-compose 1.29) accepts both and says what is missing; and
the one-host stack comes up for real from the local images: PostgreSQL, Redis, migrations, the site
healthy on its published port, workers in containers validating uploads and playing a ranked
match with bots in containers of this host's engine, and `down -v` leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.localsite import free_port
from tests.support.services import require_binary

INFRA = Path(__file__).resolve().parents[2] / "infra"
SECRETS = {"SECRET_KEY": "k" * 50, "POSTGRES_PASSWORD": "pg-secret", "REDIS_PASSWORD": "redis-secret",
           "ARMADA_BOT_SEED_KEY": "ab" * 32}
WORKER_HOST = {"SECRET_KEY": "k" * 50, "ARMADA_BOT_SEED_KEY": "ab" * 32, "ARMADA_S3_BUCKET": "armada",
               "DATABASE_URL": "postgresql://armada:pw@10.0.0.1:5432/armada",
               "REDIS_URL": "redis://:pw@10.0.0.1:6379/0"}


def compose(file: str, env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """docker-compose -f infra/FILE ARGS, with exactly `env` as the deployment's variables (no infra/.env)."""
    binary = require_binary("docker-compose")
    with tempfile.NamedTemporaryFile("w", suffix=".env") as no_env_file:
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("ARMADA_", "AWS_"))
                 and k not in ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS", "DEBUG")}
        return subprocess.run([binary, "--env-file", no_env_file.name, "-f", str(INFRA / file), *args], cwd=INFRA,
                              env={**clean, "ARMADA_ENV_FILE": no_env_file.name, **env}, capture_output=True,
                              text=True, timeout=timeout)


def config(file: str, env: dict[str, str]) -> dict[str, Any]:
    done = compose(file, env, "config")
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)


def test_the_one_host_file_is_accepted_and_complete():
    conf = config("compose.yml", {**SECRETS, "ARMADA_SANDBOX_DIR": "/srv/armada-sandbox"})
    services = conf["services"]
    assert set(services) == {"postgres", "redis", "migrate", "web", "worker-validation", "worker-matches", "worker",
                             "beat"}
    assert set(conf["volumes"]) == {"data", "postgres", "redis"}
    for name, service in services.items():
        assert service["image"].startswith("armada/"), name  # built here by `make images`, never pulled
        assert service["restart"] == ("no" if name == "migrate" else "unless-stopped"), name
    assert services["web"]["healthcheck"]["test"] == ["CMD", "armada-app", "health", "web"]
    assert services["postgres"]["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    for name in ("worker-validation", "worker-matches", "worker"):
        worker = services[name]
        assert worker["healthcheck"]["test"] == ["CMD", "armada-app", "health", "worker"]
        assert "/var/run/docker.sock:/var/run/docker.sock:rw" in worker["volumes"]
        assert "/srv/armada-sandbox:/srv/armada-sandbox:rw" in worker["volumes"]  # the same path inside
        assert "/sys/fs/cgroup:/host/sys/fs/cgroup:ro" in worker["volumes"]  # the bots' memory peaks
        assert worker["environment"]["ARMADA_SANDBOX_DIR"] == "/srv/armada-sandbox"
    for name in ("worker-validation", "worker-matches"):  # the two that run bots read the peaks there
        assert services[name]["environment"]["ARMADA_SANDBOX_CGROUP_ROOT"] == "/host/sys/fs/cgroup"
    for name in ("web", "beat", "migrate"):  # only the workers get the engine
        assert not any("docker.sock" in volume for volume in services[name]["volumes"]), name
    web_env = services["web"]["environment"]
    assert web_env["DEBUG"] == "false"
    assert web_env["DATABASE_URL"] == "postgresql://armada:pg-secret@postgres:5432/armada"
    assert web_env["REDIS_URL"] == "redis://:redis-secret@redis:6379/0"
    assert services["web"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert web_env["ARMADA_HEALTH_CHECKS"] == "database,redis,storage"  # no Docker socket there
    assert web_env["ARMADA_PROXY_SSL_HEADER"] == "X-Forwarded-Proto" and web_env["ARMADA_HTTPS"] == "true"
    assert "ARMADA_HEALTH_CHECKS" not in services["worker-matches"]["environment"]  # all four
    # two periodic processes: a run of a season's integrity checks (minutes) held the only one, and
    # the reapers' messages expired unrun meanwhile (a reliability review)
    assert services["worker"]["environment"]["ARMADA_WORKER_CONCURRENCY"] == "2"


def test_the_worker_host_file_is_accepted_and_has_no_services_of_its_own():
    conf = config("compose.worker.yml", WORKER_HOST)
    services = conf["services"]
    assert set(services) == {"worker-matches", "worker-validation", "sweeper"}
    for service in services.values():
        assert service["environment"]["DATABASE_URL"] == WORKER_HOST["DATABASE_URL"]
        assert service["environment"]["ARMADA_S3_BUCKET"] == "armada"
        assert "/var/run/docker.sock:/var/run/docker.sock:rw" in service["volumes"]
        assert "/var/lib/armada/sandbox:/var/lib/armada/sandbox:rw" in service["volumes"]
        assert "/sys/fs/cgroup:/host/sys/fs/cgroup:ro" in service["volumes"]
        assert service["environment"]["ARMADA_S3_ADDRESSING_STYLE"] == "auto"
    for name in ("worker-matches", "worker-validation"):
        assert services[name]["environment"]["ARMADA_SANDBOX_CGROUP_ROOT"] == "/host/sys/fs/cgroup"


def test_a_worker_host_on_a_second_engine_of_the_same_machine_mounts_that_engines_socket():
    """docs/deploy.md, "A worker host on the same machine": the workers must drive the second engine,
    not the main one (`DOCKER_HOST` only says where compose creates the containers)."""
    sock = "/run/armada-dockerd/host2/docker.sock"
    conf = config("compose.worker.yml", {**WORKER_HOST, "ARMADA_DOCKER_SOCKET": sock,
                                         "ARMADA_S3_ADDRESSING_STYLE": "path"})
    for service in conf["services"].values():
        assert f"{sock}:/var/run/docker.sock:rw" in service["volumes"]
        assert not any(v.startswith("/var/run/docker.sock") for v in service["volumes"])
        assert service["environment"]["ARMADA_S3_ADDRESSING_STYLE"] == "path"


@pytest.mark.parametrize(("file", "env", "variable"), [
    ("compose.yml", SECRETS, "SECRET_KEY"),
    ("compose.yml", SECRETS, "POSTGRES_PASSWORD"),
    ("compose.worker.yml", WORKER_HOST, "ARMADA_S3_BUCKET"),
    ("compose.worker.yml", WORKER_HOST, "REDIS_URL"),
])
def test_a_missing_secret_or_service_is_named(file, env, variable):
    done = compose(file, {k: v for k, v in env.items() if k != variable}, "config")
    assert done.returncode != 0
    assert f"set {variable}" in done.stderr, done.stderr


# -- the stack for real ------------------------------------------------------------------------

def _shell(project: list[str], env: dict[str, str], code: str) -> Any:
    """Run Python in the web container (as the app's user) and return the JSON it printed last."""
    done = compose("compose.yml", env, *project, "exec", "-T", "web", "manage.py", "shell", "-v", "0", "-c", code,
                   timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _wait(what: str, seconds: float, probe: Any, logs: Any = None) -> Any:
    """Poll `probe` until it returns something true; fail after `seconds` with `logs()` if given."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {seconds:g} s" + (f"; logs:\n{logs()[-4000:]}" if logs else ""))
        time.sleep(2)


def _health(project_name: str) -> dict[str, str]:
    """Service -> health status of the project's running containers."""
    from armada_sandbox._engine import docker_client

    found = {}
    for container in docker_client().containers.list(filters={"label": f"com.docker.compose.project={project_name}"}):
        health = container.attrs["State"].get("Health", {}).get("Status", "none")
        found[container.labels["com.docker.compose.service"]] = health
    return found


@pytest.mark.docker
@pytest.mark.slow
def test_the_one_host_stack_serves_validates_and_plays_then_goes_without_a_trace():
    from armada_sandbox._engine import docker_client
    from tests.support.app_image import require_app_image

    require_app_image()
    client = docker_client()
    for tag in ("armada/postgres:15", "armada/redis:7", "armada/bot:latest"):
        if not client.images.list(name=tag):
            from tests.support.services import missing

            missing(f"image {tag} is missing; build the images with `make images`")
    name = f"armadatest{uuid.uuid4().hex[:8]}"
    sandbox = Path(tempfile.mkdtemp(prefix=f"armada-{name}-"))  # the host folder, the same path inside
    port = free_port()
    env = {**SECRETS, "SECRET_KEY": secrets.token_hex(32), "ARMADA_HTTPS": "false", "ARMADA_SANDBOX_DIR": str(sandbox),
           "ARMADA_WEB_PORT": str(port), "ARMADA_POSTGRES_PORT": str(free_port()),
           "ARMADA_REDIS_PORT": str(free_port()), "ARMADA_HEALTH_INTERVAL": "3s", "MATCH_WARM_PAIRS": "1",
           "ARMADA_WORKER_STOP_GRACE": "30s",
           "ARMADA_METRICS_ALLOW": "172.16.0.0/12,192.168.0.0/16,10.0.0.0/8"}  # the monitor: the host, via its gateway
    project = ["-p", name]
    try:
        done = compose("compose.yml", env, *project, "up", "-d", timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        services = ("web", "worker-validation", "worker-matches", "worker")
        _wait("the web and worker containers healthy", 180,
              lambda: all(_health(name).get(service) == "healthy" for service in services))
        # plain HTTP from inside the deployment: /healthz is never redirected to https://; the host
        # reaches it from the compose network's gateway, a monitor's address (ARMADA_METRICS_ALLOW)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": "localhost"})
        report = json.loads(urllib.request.urlopen(request, timeout=10).read())
        assert report["checks"]["database"]["detail"] == "postgresql"
        proxied = urllib.request.Request(request.full_url, headers={"Host": "localhost",
                                                                    "X-Forwarded-For": "203.0.113.9"})
        visitor = json.loads(urllib.request.urlopen(proxied, timeout=10).read())
        assert visitor["checks"]["database"]["detail"] == "ok"  # a visitor's view: no internal text
        assert report["checks"]["redis"]["ok"] and report["checks"]["storage"]["ok"]
        assert "docker" not in report["checks"]  # the web role's checks: the engine is the workers'
        health = compose("compose.yml", env, *project, "exec", "-T", "worker-matches", "armada-app", "health",
                         "worker", timeout=120)
        assert health.returncode == 0 and "docker: ok" in health.stdout, health.stdout + health.stderr
        page = urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/ladder/galaxy/",
                                                             headers={"Host": "localhost"}), timeout=10)
        assert page.headers["Server"] == "gunicorn"

        seeded = compose("compose.yml", env, *project, "exec", "-T", "-e", "ARMADA_DEVDATA=true", "web", "manage.py",
                         "seed_demo", timeout=120)
        assert seeded.returncode == 0, seeded.stdout + seeded.stderr

        def versions() -> list[str] | None:
            got = _shell(project, env, "from armada_web.bots.models import BotVersion; import json; "
                                       "print(json.dumps(list(BotVersion.objects.values_list('status', flat=True))))")
            return got if len(got) == 6 and not {"pending", "validating"} & set(got) else None

        def worker_logs() -> str:
            return compose("compose.yml", env, *project, "logs", "--no-color", "--tail", "60", "worker-validation",
                           "worker-matches").stdout

        assert set(_wait("the demo bots validated", 180, versions, worker_logs)) == {"valid"}
        # each validation measured its container's memory peak through the mounted host cgroups
        # (before the mount every version said "memory peak not measured" under compose)
        peaks = _shell(project, env, "from armada_web.bots.models import BotVersion; import json; print(json.dumps("
                                     "[v.resources.get('memory_peak_mib') for v in BotVersion.objects.all()]))")
        assert len(peaks) == 6 and all(isinstance(peak, int) and peak > 0 for peak in peaks), peaks

        def ranked() -> list[list[str]] | None:
            got = _shell(project, env, "from armada_web.matches.models import Match; import json; print(json.dumps("
                                       "list(Match.objects.filter(kind='ranked').values_list('status', 'reason'))))")
            return got if any(status == "finished" for status, _ in got) else None

        matches = _wait("a ranked match finished", 180, ranked, worker_logs)
        assert not [reason for status, reason in matches if status in ("void", "failed")], matches

        # the bots ran in containers of this host's engine, warm, in the slots of the shared folder
        def warm_log() -> bool:
            logs = compose("compose.yml", env, *project, "logs", "--no-color", "worker-matches").stdout
            return "sandbox starts: seat 1 warm, seat 2 warm" in logs

        _wait("a match played in warm containers", 120, warm_log, worker_logs)
        slots = client.api.containers(filters={"label": f"armada.slots={sandbox}/slots"})
        assert slots, "the workers' warm containers carry the shared slot folder"
        assert {path.name for path in (sandbox / "slots").iterdir()} >= {"slot-0.lock", "slot-1.lock"}

        # an organiser's trial changed POSTGRES_PASSWORD on a running stack: migrate ended in a traceback
        # (the cluster keeps the password it was first made with); now one line says which and why
        wrong = compose("compose.yml", {**env, "POSTGRES_PASSWORD": "not-the-first-one"}, *project, "run", "--rm",
                        "--no-deps", "-T", "migrate", timeout=120)
        assert wrong.returncode != 0
        assert "armada-app: migrate stops: the database does not answer with DATABASE_URL" in wrong.stderr
        assert "Traceback" not in wrong.stdout + wrong.stderr, wrong.stdout + wrong.stderr
        # an operator's trial: a bad setting was said, then blamed on the database's password
        bad = compose("compose.yml", env, *project, "run", "--rm", "--no-deps", "-T", "-e", "ARMADA_GALAXY_TURN_MS=abc",
                      "migrate", timeout=120)
        assert bad.returncode != 0 and "ARMADA_GALAXY_TURN_MS must be an integer, got 'abc'" in bad.stderr, bad.stderr
        assert "migrate stops: Django's checks failed (above)" in bad.stderr and "password" not in bad.stderr
    finally:
        down = compose("compose.yml", env, *project, "down", "-v", "--remove-orphans", timeout=300)
        try:
            assert down.returncode == 0, down.stderr
            left = client.containers.list(all=True, filters={"label": f"com.docker.compose.project={name}"})
            assert not left
            assert not client.api.containers(all=True, filters={"label": f"armada.slots={sandbox}/slots"})
            assert not [v for v in client.volumes.list() if v.name.startswith(name)]
        finally:
            shutil.rmtree(sandbox, ignore_errors=True)
