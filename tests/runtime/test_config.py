"""The typed settings object: defaults per game (protocol.md's time limits, the sandbox's), values
from the environment, and a wrong value refused at start-up naming its variable."""

import os

import pytest

from armada_web.runtime.config import Config, ConfigError, load, variables

KEY = "a-test-secret-key-of-fifty-or-more-characters-0123456789"


def test_defaults_follow_the_protocol_and_the_sandbox_brief():
    config = load({})
    mothership, galaxy = config.game("mothership"), config.game("galaxy")
    assert (mothership.times.init_ms, mothership.times.turn_ms, mothership.times.bank_ms) == (30000, 2000, 10000)
    assert (galaxy.times.init_ms, galaxy.times.turn_ms, galaxy.times.bank_ms) == (30000, 1000, 10000)
    sandbox = galaxy.sandbox
    assert (sandbox.memory_mb, sandbox.pids, sandbox.tmp_mb, sandbox.max_line_bytes) == (1024, 64, 16, 1024 * 1024)
    assert sandbox.cpus == 1.0
    assert galaxy.match_config == {} and galaxy.validation_config == {"max_turns": 30}
    assert mothership.validation_config == {}
    assert config.uploads_per_hour == 20 and config.debug is True and config.stuck_match_s == 1800 + 300


def test_environment_overrides_per_game():
    config = load({"ARMADA_GALAXY_INIT_MS": "3000", "ARMADA_GALAXY_TURN_MS": "500", "ARMADA_GALAXY_BANK_MS": "2000",
                   "ARMADA_SANDBOX_GALAXY_MEMORY_MB": "768", "ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": 40}',
                   "ARMADA_GALAXY_VALIDATION_TURNS": "12", "ARMADA_UPLOADS_PER_HOUR": "3", "DEBUG": "off",
                   "SECRET_KEY": KEY, "ALLOWED_HOSTS": "a.example, b.example"})
    galaxy = config.game("galaxy")
    assert (galaxy.times.init_ms, galaxy.times.turn_ms, galaxy.times.bank_ms, galaxy.sandbox.memory_mb) == (
        3000, 500, 2000, 768)
    assert galaxy.match_config == {"max_turns": 40}
    assert galaxy.validation_config == {"max_turns": 12}  # the match config, with the validation's length
    assert config.game("mothership").sandbox.memory_mb == 1024
    assert config.uploads_per_hour == 3 and config.debug is False
    assert config.allowed_hosts == ("a.example", "b.example")


@pytest.mark.parametrize(("env", "message"), [
    ({"MATCH_TIME_LIMIT_S": "soon"}, "MATCH_TIME_LIMIT_S must be an integer, got 'soon'"),
    ({"ARMADA_UPLOADS_PER_HOUR": "0"}, "ARMADA_UPLOADS_PER_HOUR must be at least 1"),
    ({"ARMADA_UPLOADS_PER_HOUR": "²"}, "ARMADA_UPLOADS_PER_HOUR must be an integer"),
    ({"DEBUG": "maybe"}, "DEBUG must be true or false"),
    ({"ARMADA_GALAXY_MATCH_CONFIG": "{max_turns: 3}"}, "ARMADA_GALAXY_MATCH_CONFIG is not JSON"),
    ({"ARMADA_GALAXY_MATCH_CONFIG": "[1]"}, "ARMADA_GALAXY_MATCH_CONFIG must be a JSON object"),
    ({"ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": -5}'}, "ARMADA_GALAXY_MATCH_CONFIG: "),
    ({"ARMADA_GALAXY_MATCH_CONFIG": '{"no_such_option": 1}'}, "ARMADA_GALAXY_MATCH_CONFIG: "),
    ({"ARMADA_GALAXY_TURN_MS": "0"}, "ARMADA_GALAXY_INIT_MS/TURN_MS/BANK_MS: limits: turn_ms must be at least 1"),
    ({"ARMADA_SANDBOX_MEMORY_MB": "lots"}, "ARMADA_SANDBOX_"),
    ({"ARMADA_LOG_FORMAT": "xml"}, "ARMADA_LOG_FORMAT must be one of text, json, got 'xml'"),
    ({"ARMADA_HEALTH_CHECKS": "database,disk"}, "ARMADA_HEALTH_CHECKS: unknown check 'disk'"),
    ({"ARMADA_METRICS_ALLOW": "10.0.0.0/8,prometheus"}, "ARMADA_METRICS_ALLOW: 'prometheus' is not an address"),
    ({"ARMADA_PROXY_SSL_HEADER": "X-Forwarded-Proto: https"}, "ARMADA_PROXY_SSL_HEADER must be a header name"),
    ({"ARMADA_HTTPS": "sometimes"}, "ARMADA_HTTPS must be true or false"),
    ({"DEBUG": "false"}, "SECRET_KEY is not set: with DEBUG off the site needs a secret key of its own"),
    ({"DEBUG": "false", "SECRET_KEY": "short-key"}, "SECRET_KEY is too weak (9 characters"),
    ({"DEBUG": "false", "SECRET_KEY": "x" * 60}, "SECRET_KEY is too weak (60 characters, 1 different"),
    ({"DEBUG": "false", "SECRET_KEY": "dev-only-insecure-key-change-me-in-production"},
     "SECRET_KEY is the development placeholder"),
    ({"DEBUG": "false", "SECRET_KEY": KEY, "SECRET_KEY_FALLBACKS": "old"}, "SECRET_KEY_FALLBACKS: a key is too weak"),
    # an organiser's trial: "xyz" was taken as the key of every bot's seed (D-R-8), which a bot could then guess
    ({"DEBUG": "false", "SECRET_KEY": KEY, "ARMADA_BOT_SEED_KEY": "xyz"}, "ARMADA_BOT_SEED_KEY is too short (3"),
    ({"ARMADA_TRUSTED_PROXIES": "10.0.0.1,proxy.example"}, "ARMADA_TRUSTED_PROXIES: 'proxy.example' is neither"),
    ({"ARMADA_SITE_URL": "armada.example"}, "ARMADA_SITE_URL must be the site's address such as"),
    ({"ARMADA_SITE_URL": "https://armada.example/arena"}, "got 'https://armada.example/arena'"),
    ({"EMAIL_PORT": "0"}, "EMAIL_PORT must be at least 1"),
    ({"EMAIL_USE_TLS": "true", "EMAIL_USE_SSL": "true"}, "EMAIL_USE_TLS and EMAIL_USE_SSL: set one of them"),
])
def test_a_wrong_value_names_its_variable(env, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("[", r"\[")):
        load(env)


def test_every_field_read_from_the_environment_is_listed_once():
    names = [v.name for v in variables()]
    assert len(names) == len(set(names))
    assert {"DATABASE_URL", "REDIS_URL", "ARMADA_UPLOADS_PER_HOUR", "ARMADA_GALAXY_MATCH_CONFIG",
            "ARMADA_MOTHERSHIP_TURN_MS", "ARMADA_GALAXY_VALIDATION_TURNS"} <= set(names)
    assert "ARMADA_MOTHERSHIP_VALIDATION_TURNS" not in names  # its validation plays the engine's own length
    fields = [f for f in Config.__dataclass_fields__.values() if "env" in f.metadata]
    assert all(f.metadata["help"] for f in fields)


def test_changing_a_copy_leaves_the_original():
    config = load({})
    changed = config.with_(uploads_per_hour=2).with_game("galaxy", match_config={"max_turns": 9})
    assert changed.uploads_per_hour == 2 and changed.game("galaxy").match_config == {"max_turns": 9}
    assert config.uploads_per_hour == 20 and config.game("galaxy").match_config == {}
    with pytest.raises(KeyError, match="no settings for game 'chess'"):
        config.game("chess")


def test_https_only_follows_debug_unless_the_switch_says():
    assert load({}).https_only is False  # a developer's site
    production = {"DEBUG": "false", "SECRET_KEY": KEY}
    assert load(production).https_only is True
    assert load({**production, "ARMADA_HTTPS": "false"}).https_only is False  # `make up`: plain HTTP
    assert load({"ARMADA_HTTPS": "true"}).https_only is True


def test_the_repository_root_is_where_manage_py_is():
    from armada_web.runtime.config import REPO_ROOT, load

    assert (REPO_ROOT / "manage.py").is_file() and (REPO_ROOT / "sdk" / "pyproject.toml").is_file()
    assert load({}).data_path == REPO_ROOT / "var"  # the default data folder is the checkout's var/


def test_the_host_name_is_the_machines_unless_set_and_refuses_what_cannot_name_a_celery_node(monkeypatch):
    import socket

    monkeypatch.setattr(socket, "gethostname", lambda: "vm")
    assert load({}).host_name == "vm" and load({}).worker_host == "vm"  # the machine's: Celery's %h
    assert load({"ARMADA_HOST_NAME": "worker-2.eu"}).worker_host == "worker-2.eu"
    assert Config().worker_host == "vm"  # a config made without load still names the machine
    for wrong in ("matches@vm", "two words", "-dash", "x" * 101):
        with pytest.raises(ConfigError, match="ARMADA_HOST_NAME must be a name"):
            load({"ARMADA_HOST_NAME": wrong})
    assert "ARMADA_HOST_NAME" in {v.name for v in variables()}
    assert next(v for v in variables() if v.name == "ARMADA_HOST_NAME").default == ""  # never this machine's


def test_the_mail_server_is_set_from_the_environment():
    """Only EMAIL_BACKEND was read: an organiser could choose SMTP but not name the server, its port,
    user or password (Django's own defaults, localhost:25, stayed)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "smtp.example",
           "EMAIL_PORT": "587", "EMAIL_HOST_USER": "arena", "EMAIL_HOST_PASSWORD": "pw", "EMAIL_USE_TLS": "true"}
    shown = ("import django; django.setup(); from django.conf import settings as s; print(s.EMAIL_HOST, s.EMAIL_PORT, "
             "s.EMAIL_HOST_USER, s.EMAIL_HOST_PASSWORD, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.EMAIL_TIMEOUT)")
    done = subprocess.run([sys.executable, "-c", shown],
                          cwd=root, env={**env, "DJANGO_SETTINGS_MODULE": "armada_web.settings"}, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.split() == ["smtp.example", "587", "arena", "pw", "True", "False", "10"], done.stderr
