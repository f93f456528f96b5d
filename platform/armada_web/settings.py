"""Django settings. Every value that differs between machines comes from `env.py`.

One-machine defaults: SQLite (WAL, busy timeout), Redis on localhost, files under `var/`.
Production sets DATABASE_URL (PostgreSQL, psycopg 3), REDIS_URL, SECRET_KEY, ALLOWED_HOSTS.
"""

from __future__ import annotations

import dj_database_url

from .env import REPO_ROOT, data_dir, env_bool, env_int, env_list, env_str

DATA_DIR = data_dir()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", "dev-only-insecure-key-change-me-in-production")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "armada_web.ops",
    "armada_web.pages",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "armada_web.urls"
WSGI_APPLICATION = "armada_web.wsgi.application"
ASGI_APPLICATION = "armada_web.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite by default: WAL lets the web process and the workers write at the same time, the
# busy timeout makes a writer wait for a lock instead of failing, IMMEDIATE avoids upgrade deadlocks.
SQLITE_PATH = DATA_DIR / "armada.sqlite3"
DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(SQLITE_PATH),
            "OPTIONS": {
                "timeout": env_int("SQLITE_BUSY_TIMEOUT_S", 20),
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
MEDIA_URL = "media/"
MEDIA_ROOT = DATA_DIR / "media"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
}

# Redis: Celery's broker and result backend.
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
# Longest a match may run; Redis redelivers unacknowledged tasks only after this much longer.
MATCH_TIME_LIMIT_S = env_int("MATCH_TIME_LIMIT_S", 1800)
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", REDIS_URL)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = MATCH_TIME_LIMIT_S + 120
CELERY_TASK_SOFT_TIME_LIMIT = MATCH_TIME_LIMIT_S + 60
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": MATCH_TIME_LIMIT_S * 2}
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE = {
    "sweep-bot-containers": {
        "task": "armada_web.ops.tasks.sweep_containers",
        "schedule": 300.0,
    },
}

# Docker sandbox
DOCKER_BOT_IMAGE = env_str("ARMADA_BOT_IMAGE", "armada/bot:latest")

# Per-game limits of every match the platform runs (see armada_web.ops.limits).
# Time limits default to protocol.md's (init 5000 ms, requests 1000 ms, Mothership orders
# 2000 ms, bank 10000 ms); ARMADA_<GAME>_<INIT|TURN|BANK>_MS override them. "sandbox" holds
# armada_sandbox.SandboxLimits overrides (memory_mb 512, pids 64, tmp_mb 16, cpus 1, ...),
# and ARMADA_SANDBOX_[<GAME>_]<FIELD> override those on a worker.
ARMADA_GAME_LIMITS = {
    game: {
        "init_ms": env_int(f"ARMADA_{game.upper()}_INIT_MS", 5000),
        "turn_ms": env_int(f"ARMADA_{game.upper()}_TURN_MS", 2000 if game == "mothership" else 1000),
        "bank_ms": env_int(f"ARMADA_{game.upper()}_BANK_MS", 10000),
        "sandbox": {},
    }
    for game in ("mothership", "galaxy")
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

REPO_DIR = REPO_ROOT
