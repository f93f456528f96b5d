"""Settings come from the environment, with one-machine defaults (SQLite WAL, local Redis)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.db import connection
info = {"vendor": connection.vendor, "name": str(settings.DATABASES["default"]["NAME"]),
        "redis": settings.REDIS_URL, "data": str(settings.DATA_DIR), "debug": settings.DEBUG}
if connection.vendor == "sqlite":
    with connection.cursor() as c:
        c.execute("PRAGMA journal_mode"); info["journal"] = c.fetchone()[0]
        c.execute("PRAGMA busy_timeout"); info["busy_ms"] = c.fetchone()[0]
print(json.dumps(info))
"""


def _probe(tmp_path: Path, **env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG")}
    clean.update({"ARMADA_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "armada_web.settings", **env})
    out = subprocess.run([sys.executable, "-c", PROBE], env=clean, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_default_is_sqlite_with_wal_and_busy_timeout_under_the_data_dir(tmp_path):
    info = _probe(tmp_path)
    assert info["vendor"] == "sqlite"
    assert info["name"] == str(tmp_path / "armada.sqlite3")
    assert info["journal"] == "wal"
    assert info["busy_ms"] >= 5000
    assert info["redis"] == "redis://127.0.0.1:6379/0"


def test_environment_overrides(tmp_path):
    info = _probe(tmp_path, REDIS_URL="redis://10.0.0.9:6380/3", DEBUG="false",
                  SECRET_KEY="settings-test-key-0123456789-abcdefghijklmnopqrstuvwxyz")
    assert info["redis"] == "redis://10.0.0.9:6380/3"
    assert info["debug"] is False


def test_database_url_switches_to_postgresql(tmp_path):
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "d = settings.DATABASES['default']; print(d['ENGINE'], d['NAME'], d['HOST'], d['PORT'])"
    )
    env = {**os.environ, "ARMADA_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "armada_web.settings",
           "DATABASE_URL": "postgresql://u:p@db.example:5433/armada"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["django.db.backends.postgresql", "armada", "db.example", "5433"]


def test_bad_integer_setting_is_a_clear_error(tmp_path):
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "ARMADA_DATA_DIR": str(tmp_path), "MATCH_TIME_LIMIT_S": "soon",
                              "DJANGO_SETTINGS_MODULE": "armada_web.settings"})
    assert out.returncode != 0
    assert out.stderr.strip().splitlines()[-1] == (
        "armada: environment variable MATCH_TIME_LIMIT_S must be an integer, got 'soon'")  # one line, no traceback
    assert "Traceback" not in out.stderr
