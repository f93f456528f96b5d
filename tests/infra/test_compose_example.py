"""Compose works the first time from `infra/deploy.env.example` alone (issue 30).

An organiser copies the example to an env file, fills in its empty secrets and nothing else, and
`docker-compose -f infra/compose.yml config` (Debian's docker-compose 1.29; it only reads files)
accepts it with no other ARMADA_* variable in the environment: the one-shot `migrate` service
creates the bucket (ARMADA_S3_CREATE_BUCKET), the staff account (DJANGO_SUPERUSER_*) and the demo
bots only when ARMADA_DEMO asks; HTTPS is on; PostgreSQL and Redis are published on the
example's ports. `migrate`'s script is then run as the container would run it, with a stand-in
`manage.py` that records its calls. (Bringing the stack up for real: tests/infra/test_compose.py.)
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.services import require_binary

INFRA = Path(__file__).resolve().parents[2] / "infra"
EXAMPLE = INFRA / "deploy.env.example"
#: What the organiser fills in: the example's empty secrets (the header says to).
FILLED = {"SECRET_KEY": "k" * 50, "POSTGRES_PASSWORD": "pg-secret", "REDIS_PASSWORD": "redis-secret",
          "ARMADA_BOT_SEED_KEY": "ab" * 32, "DJANGO_SUPERUSER_PASSWORD": "a-long-first-password"}
#: Variables of the deployment that must not come from the test's own environment.
DEPLOYMENT = ("ARMADA_", "AWS_", "DJANGO_SUPERUSER_")
OTHERS = ("SECRET_KEY", "POSTGRES_PASSWORD", "REDIS_PASSWORD", "DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS",
          "CSRF_TRUSTED_ORIGINS", "DEBUG")


def example_values() -> dict[str, str]:
    """The example's assignments (commented-out lines left out), in order."""
    values = {}
    for line in EXAMPLE.read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name] = value
    return values


def env_file(folder: Path, **changes: str) -> Path:
    """The example copied as an organiser would: its empty secrets filled in, `changes` applied."""
    lines = []
    for line in EXAMPLE.read_text().splitlines():
        name, sep, value = line.partition("=")
        if sep and not line.startswith("#"):
            value = changes.pop(name, value or FILLED.get(name, value))
            line = f"{name}={value}"
        lines.append(line)
    assert not changes, f"not in the example: {sorted(changes)}"
    path = folder / "deploy.env"
    path.write_text("\n".join(lines) + "\n")
    return path


def compose_config(file: Path) -> subprocess.CompletedProcess[str]:
    binary = require_binary("docker-compose")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(DEPLOYMENT) and k not in OTHERS}
    return subprocess.run([binary, "--env-file", str(file), "-f", str(INFRA / "compose.yml"), "config"], cwd=INFRA,
                          env={**clean, "ARMADA_ENV_FILE": str(file)}, capture_output=True, text=True, timeout=60)


def config(file: Path) -> dict[str, Any]:
    done = compose_config(file)
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)


def test_the_example_alone_is_all_compose_needs(tmp_path):
    services = config(env_file(tmp_path))["services"]
    values = example_values()
    migrate = services["migrate"]
    script = migrate["command"][-1]
    assert migrate["command"][:2] == ["sh", "-ec"]
    assert "manage.py migrate --noinput" in script
    assert re.search(r'if \[ "\$+ARMADA_S3_CREATE_BUCKET" = true \]; then manage.py ensure_bucket; fi', script)
    assert re.search(r'if \[ -n "\$+DJANGO_SUPERUSER_USERNAME" \]; then manage.py ensure_superuser; fi', script)
    env = migrate["environment"]
    assert env["ARMADA_S3_CREATE_BUCKET"] == values["ARMADA_S3_CREATE_BUCKET"] == "true"
    assert env["DJANGO_SUPERUSER_USERNAME"] == values["DJANGO_SUPERUSER_USERNAME"] == "admin"
    assert env["DJANGO_SUPERUSER_EMAIL"] == values["DJANGO_SUPERUSER_EMAIL"]
    assert env["DJANGO_SUPERUSER_PASSWORD"] == FILLED["DJANGO_SUPERUSER_PASSWORD"]
    assert env["ARMADA_DEMO"] == values["ARMADA_DEMO"] == "false"
    assert migrate["depends_on"]["redis"] == {"condition": "service_healthy"}  # the demo bots' validations
    # HTTPS on, as the example says; PostgreSQL and Redis on the example's ports
    assert values["ARMADA_HTTPS"] == "true"
    for name in ("web", "worker-matches", "beat", "migrate"):
        assert services[name]["environment"]["ARMADA_HTTPS"] == "true", name
    assert services["postgres"]["ports"] == [f"127.0.0.1:{values['ARMADA_POSTGRES_PORT']}:5432/tcp"]
    assert services["redis"]["ports"] == [f"127.0.0.1:{values['ARMADA_REDIS_PORT']}:6379/tcp"]
    assert (values["ARMADA_POSTGRES_PORT"], values["ARMADA_REDIS_PORT"]) == ("5432", "6379")
    # demo data never without ARMADA_DEMO: no service installs the devdata app, none runs with DEBUG
    for name, service in services.items():
        environment = service.get("environment", {})
        assert "ARMADA_DEVDATA" not in environment, name
        assert environment.get("DEBUG", "false") == "false", name
        assert name == "migrate" or "seed_demo" not in str(service.get("command")), name
    # the staff account's secrets are the one-shot service's only
    assert not any(services[name]["environment"].get("DJANGO_SUPERUSER_PASSWORD") for name in services
                   if name != "migrate")


def test_every_setting_of_the_env_file_reaches_the_sites_containers(tmp_path):
    """An organiser's setting that compose does not name itself (mail, a game's limits, throttles)
    reaches the web server and every worker from the env file (it was silently dropped)."""
    path = env_file(tmp_path)
    with path.open("a") as extra:
        extra.write("EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend\nARMADA_GALAXY_UPLOAD_MAX_BYTES=5000000\n"
                    "THROTTLE_USER=50/min\n")
    services = config(path)["services"]
    for name in ("migrate", "web", "worker-validation", "worker-matches", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend", name
        assert environment["ARMADA_GALAXY_UPLOAD_MAX_BYTES"] == "5000000", name
        assert environment["THROTTLE_USER"] == "50/min", name
    assert "EMAIL_BACKEND" not in services["postgres"].get("environment", {})  # the site's containers only
    assert services["web"]["environment"]["ARMADA_HTTPS"] == "true"  # what compose fixes still comes from it


def test_the_env_file_cannot_move_what_compose_mounts_and_publishes(tmp_path):
    """The env file reaches the containers, but the data volume's mount point, the port the
    published port maps to and the workers' folders shared with the bots' containers are compose's:
    ARMADA_DATA_DIR, PORT or TMPDIR there (all in the settings table) would put the data outside
    the volume, the web server on a port nothing publishes, the bots' files where their containers
    cannot mount them."""
    path = env_file(tmp_path)
    with path.open("a") as extra:
        extra.write("ARMADA_DATA_DIR=/srv/armada\nPORT=9000\nTMPDIR=/tmp\nARMADA_SANDBOX_SLOT_DIR=/tmp/slots\n")
    services = config(path)["services"]
    for name in ("migrate", "web", "worker-validation", "worker-matches", "worker", "beat"):
        assert services[name]["environment"]["ARMADA_DATA_DIR"] == "/var/lib/armada/data", name
        assert "data:/var/lib/armada/data" in str(services[name]["volumes"]) or any(
            v.get("target") == "/var/lib/armada/data" for v in services[name]["volumes"] if isinstance(v, dict)), name
    assert services["web"]["environment"]["PORT"] == "8000"
    assert services["web"]["ports"][0].endswith(":8000/tcp")
    sandbox = example_values()["ARMADA_SANDBOX_DIR"]
    for name in ("worker-validation", "worker-matches", "worker"):
        environment = services[name]["environment"]
        assert environment["TMPDIR"] == f"{sandbox}/tmp", name
        assert environment["ARMADA_SANDBOX_SLOT_DIR"] == f"{sandbox}/slots", name


def test_an_env_file_outside_infra_works_as_docs_deploy_md_says(tmp_path):
    """docs/deploy.md, "Another folder for .env": `--env-file PATH` and the file naming itself in
    ARMADA_ENV_FILE (env_file otherwise looks for infra/.env, which such a deployment has not)."""
    section = (INFRA.parent / "docs" / "deploy.md").read_text().split("**Another folder for `.env`.**", 1)[1]
    section = section.split("\n\n", 1)[0]
    assert "docker-compose --env-file /etc/armada/deploy.env" in section
    assert "`ARMADA_ENV_FILE=/etc/armada/deploy.env`" in section
    path = env_file(tmp_path)
    with path.open("a") as extra:
        extra.write(f"ARMADA_ENV_FILE={path}\nTHROTTLE_USER=50/min\n")
    binary = require_binary("docker-compose")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(DEPLOYMENT) and k not in OTHERS}
    done = subprocess.run([binary, "--env-file", str(path), "-p", "armada", "-f", str(INFRA / "compose.yml"), "config"],
                          cwd=tmp_path, env=clean, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout)["services"]["web"]["environment"]["THROTTLE_USER"] == "50/min"


def test_the_ports_and_the_steps_follow_the_env_file(tmp_path):
    services = config(env_file(tmp_path, ARMADA_POSTGRES_PORT="5433", ARMADA_REDIS_PORT="6380", ARMADA_HTTPS="false",
                               ARMADA_S3_CREATE_BUCKET="false", ARMADA_DEMO="true",
                               DJANGO_SUPERUSER_USERNAME="organiser"))["services"]
    assert services["postgres"]["ports"] == ["127.0.0.1:5433:5432/tcp"]
    assert services["redis"]["ports"] == ["127.0.0.1:6380:6379/tcp"]
    assert services["web"]["environment"]["ARMADA_HTTPS"] == "false"
    env = services["migrate"]["environment"]
    assert (env["ARMADA_S3_CREATE_BUCKET"], env["ARMADA_DEMO"], env["DJANGO_SUPERUSER_USERNAME"]) == (
        "false", "true", "organiser")


def test_the_web_container_trusts_the_proxy_it_sees_so_clients_keep_their_addresses(tmp_path):
    """Under compose the TLS proxy's connections reach the web container from the compose network's
    gateway (172.18.0.1 when tried), never from 127.0.0.1: unless the site trusts that gateway every
    client is that one address, and one client's failed passwords lock everyone out. The example's
    value reaches the web container, covers the gateways Docker gives, and is the organiser's to change."""
    import ipaddress

    services = config(env_file(tmp_path))["services"]
    trusted = services["web"]["environment"]["ARMADA_TRUSTED_PROXIES"]
    assert trusted == example_values()["ARMADA_TRUSTED_PROXIES"]
    networks = [ipaddress.ip_network(n) for n in trusted.split(",")]
    for gateway in ("172.17.0.1", "172.18.0.1", "172.31.0.1", "192.168.16.1"):
        assert any(ipaddress.ip_address(gateway) in n for n in networks), gateway
    assert not any(ipaddress.ip_address("127.0.0.1") in n for n in networks)
    changed = config(env_file(tmp_path, ARMADA_TRUSTED_PROXIES="10.0.0.7"))["services"]
    assert changed["web"]["environment"]["ARMADA_TRUSTED_PROXIES"] == "10.0.0.7"


def test_the_examples_empty_secrets_are_refused_by_name(tmp_path):
    path = tmp_path / "as-copied.env"
    path.write_text(EXAMPLE.read_text())
    done = compose_config(path)
    assert done.returncode != 0
    assert "set SECRET_KEY" in done.stderr or "set POSTGRES_PASSWORD" in done.stderr, done.stderr


@pytest.mark.parametrize(("name", "words"), [
    ("ARMADA_HTTPS", ["301", "https://", "false"]),
    ("ARMADA_POSTGRES_PORT", ["make up"]),
    ("ARMADA_S3_CREATE_BUCKET", ["bucket"]),
    ("DJANGO_SUPERUSER_USERNAME", ["staff account"]),
    ("DJANGO_SUPERUSER_PASSWORD", ["password"]),
    ("ARMADA_DEMO", ["Demo", "false"]),
    ("ARMADA_TRUSTED_PROXIES", ["throttles", "sign-in"]),
])
def test_each_new_variable_of_the_example_has_its_comment(name, words):
    lines = EXAMPLE.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{name}="))
    above = lines[at - 1]
    assert above.startswith("# "), f"{name} has no comment line above it"
    for word in words:
        assert word in above, (name, word, above)


# -- migrate's script, as the container runs it -------------------------------------------------

#: The first calls of migrate's script: Django's checks pass (the settings load: else they are said,
#: not blamed on the database), the database answers (else one line says why, docs/deploy.md).
CHECK = ["unset check", "unset healthcheck --checks database"]


def run_migrate_script(tmp_path: Path, services: dict[str, Any], fail: str = "") -> tuple[int, list[str]]:
    """Run `migrate`'s command with its environment and a stand-in manage.py on PATH that logs
    "ARMADA_DEVDATA ARGS" per call (and exits 1 for the command `fail`); returns the exit status
    and the calls."""
    migrate = services["migrate"]
    assert migrate["command"][0] == "sh"
    script = migrate["command"][-1].replace("$$", "$")  # compose's escape, undone as `up` does
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "calls.log"
    log.write_text("")
    fake = bin_dir / "manage.py"
    fake.write_text(f'#!/bin/sh\necho "${{ARMADA_DEVDATA:-unset}} $*" >>{log}\n'
                    f'[ "$1" != "{fail}" ] || exit 1\n')
    fake.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", **{k: str(v) for k, v in migrate["environment"].items()}}
    done = subprocess.run([*migrate["command"][:-1], script], env=env, capture_output=True, text=True, timeout=30)
    return done.returncode, log.read_text().splitlines()


def test_the_migrate_script_makes_the_bucket_and_the_staff_account_and_no_demo_bots(tmp_path):
    require_binary("sh")
    status, calls = run_migrate_script(tmp_path, config(env_file(tmp_path))["services"])
    assert status == 0
    assert calls == [*CHECK, "unset migrate --noinput", "unset ensure_bucket", "unset ensure_superuser"]


def test_the_demo_bots_only_when_asked_and_with_the_devdata_app_for_that_command_only(tmp_path):
    services = config(env_file(tmp_path, ARMADA_DEMO="true", ARMADA_S3_CREATE_BUCKET="false"))["services"]
    status, calls = run_migrate_script(tmp_path, services)
    assert status == 0
    assert calls == [*CHECK, "unset migrate --noinput", "unset ensure_superuser", "true seed_demo"]


def test_without_a_staff_username_no_account_is_asked_for(tmp_path):
    services = config(env_file(tmp_path, DJANGO_SUPERUSER_USERNAME="", DJANGO_SUPERUSER_PASSWORD=""))["services"]
    status, calls = run_migrate_script(tmp_path, services)
    assert status == 0
    assert calls == [*CHECK, "unset migrate --noinput", "unset ensure_bucket"]


def test_a_failing_step_stops_migrate_so_nothing_starts(tmp_path):
    status, calls = run_migrate_script(tmp_path, config(env_file(tmp_path))["services"], fail="ensure_bucket")
    assert status != 0
    assert calls == [*CHECK, "unset migrate --noinput", "unset ensure_bucket"]


def test_a_database_that_does_not_answer_stops_migrate_before_it_migrates(tmp_path):
    """An organiser's trial changed POSTGRES_PASSWORD on a running stack: migrate ended in a traceback."""
    status, calls = run_migrate_script(tmp_path, config(env_file(tmp_path))["services"], fail="healthcheck")
    assert status != 0 and calls == CHECK


def test_settings_that_do_not_load_stop_migrate_before_the_database_is_blamed(tmp_path):
    """An operator's trial: ARMADA_GALAXY_TURN_MS=abc was said, then blamed on the database's password."""
    migrate = config(env_file(tmp_path))["services"]["migrate"]
    script = migrate["command"][-1]
    status, calls = run_migrate_script(tmp_path, config(env_file(tmp_path))["services"], fail="check")
    assert status != 0 and calls == CHECK[:1]
    assert "Django's checks failed (above)" in script and script.index("manage.py check") < script.index("healthcheck")
