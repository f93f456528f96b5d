"""Django settings. Every value that differs between machines comes from `env.py`.

One-machine defaults: SQLite (WAL, busy timeout), Redis on localhost, files under `var/`.
Production sets DATABASE_URL (PostgreSQL, psycopg 3), REDIS_URL, SECRET_KEY, ALLOWED_HOSTS.
"""

from __future__ import annotations

import os
import sys

import dj_database_url

from armada.viewer import VIEWER_DIR

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
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "armada_web.ops",
    "armada_web.accounts",
    "armada_web.bots",
    "armada_web.matches",
    "armada_web.ladder",
    "armada_web.api",
    "armada_web.pages",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "armada_web.pages.csp.ContentSecurityPolicyMiddleware",
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
                "armada_web.pages.context.site",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite by default: WAL lets the web process and the workers write at the same time, the
# busy timeout makes a writer wait for a lock instead of failing, IMMEDIATE avoids upgrade deadlocks.
SQLITE_PATH = env_str("ARMADA_SQLITE_PATH", str(DATA_DIR / "armada.sqlite3"))
DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(SQLITE_PATH),
            # A file, not memory, so that worker and server processes started by tests share it;
            # named by process so that two test runs on one machine never share one.
            "TEST": {"NAME": str(DATA_DIR / f"test-{os.getpid()}.sqlite3")},
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
STATIC_ROOT.mkdir(exist_ok=True)
# The replay viewer's files are served straight from the SDK (one code base, nothing copied).
STATICFILES_DIRS = [("armada/viewer", str(VIEWER_DIR))]
# The SDK wheel the /sdk/ page serves, built by `make up` (manage.py build_sdk_wheel).
ARMADA_SDK_DIR = DATA_DIR / "sdk"
# Uploaded archives and bot logs are private: kept outside any served folder and only ever
# sent through views that check the owner (armada_web.bots.storage). There is no MEDIA_URL.
PRIVATE_ROOT = DATA_DIR / "private"
STORAGES = {
    "default": {
        "BACKEND": "armada_web.bots.storage.PrivateFileStorage",
        "OPTIONS": {"location": str(PRIVATE_ROOT)},
    },
    # Hashed, compressed names from `collectstatic` (make up, the app image); tests render without it.
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if "pytest" in sys.modules
                    else "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-bots"
LOGOUT_REDIRECT_URL = "home"
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "armada@localhost")

# Throttles and caches: counters live in the cache, Redis by default so that every web
# process shares them (CACHE_URL=locmem:// keeps them in one process, for tests).
CACHE_URL = env_str("CACHE_URL", "")
if CACHE_URL.startswith("locmem"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": CACHE_URL or env_str("REDIS_URL", "redis://127.0.0.1:6379/0"),
                          "KEY_PREFIX": env_str("CACHE_PREFIX", "armada")}}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "armada_web.accounts.tokens.NamedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "armada_web.api.pagination.PageNumber",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "armada_web.api.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "600/min"),
        "user": env_str("THROTTLE_USER", "1200/min"),
    },
}
# Failed password checks (log-in page and POST /api/tokens/) allowed per window.
ARMADA_LOGIN_FAILURES = {
    "ip": env_int("ARMADA_LOGIN_FAILURES_PER_IP", 30),
    "user": env_int("ARMADA_LOGIN_FAILURES_PER_USER", 10),
    "window_s": env_int("ARMADA_LOGIN_FAILURE_WINDOW_S", 900),
}
REST_KNOX = {
    "TOKEN_TTL": None,  # CLI tokens live until revoked
    "AUTH_HEADER_PREFIX": "Token",
}
# knox's own migrations would create its (swapped-out) AuthToken table anyway, a table no
# model uses whose foreign key to auth_user stops PostgreSQL from flushing test databases.
MIGRATION_MODULES = {"knox": None}
KNOX_TOKEN_MODEL = "accounts.ApiToken"  # noqa: S105 (a model name, not a secret)
SPECTACULAR_SETTINGS = {
    "TITLE": "Armada API",
    "DESCRIPTION": "Bots, versions, matches and ladders of the Armada arena. "
    "Authenticate with `Authorization: Token <token>` (create one on your profile page or with `armada login`).",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}
API_VERSION = 1

# Bots and uploads (docs/site.md).
ARMADA_MAX_BOTS_PER_GAME = env_int("ARMADA_MAX_BOTS_PER_GAME", 5)
ARMADA_UPLOADS_PER_HOUR = env_int("ARMADA_UPLOADS_PER_HOUR", 20)
ARMADA_UPLOAD_MAX_BYTES = env_int("ARMADA_UPLOAD_MAX_BYTES", 1024 * 1024)
ARMADA_UNPACKED_MAX_BYTES = env_int("ARMADA_UNPACKED_MAX_BYTES", 10 * 1024 * 1024)
ARMADA_UPLOAD_MAX_FILES = env_int("ARMADA_UPLOAD_MAX_FILES", 200)
# Validation: attempts before a platform failure becomes status `error`, and how long a
# version may stay `validating` (or `pending`) before the reaper acts.
ARMADA_VALIDATION_ATTEMPTS = env_int("ARMADA_VALIDATION_ATTEMPTS", 3)
ARMADA_VALIDATION_STUCK_S = env_int("ARMADA_VALIDATION_STUCK_S", 600)
ARMADA_VALIDATION_RETRY_S = env_int("ARMADA_VALIDATION_RETRY_S", 10)
ARMADA_GALAXY_VALIDATION_TURNS = env_int("ARMADA_GALAXY_VALIDATION_TURNS", 30)
# Django's upload handling: keep small uploads in memory, refuse silly request bodies early.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

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
# Validation runs on a queue of its own (served by its own worker) so that an upload never
# waits behind ranked matches; tests give each live site its own queue name.
# Task modules not named tasks.py (which autodiscovery finds by itself).
CELERY_IMPORTS = ("armada_web.bots.validation", "armada_web.matches.tasks", "armada_web.ladder.tasks")
ARMADA_VALIDATION_QUEUE = env_str("ARMADA_VALIDATION_QUEUE", "validation")
# Matches: ranked ones on `matches`, challenges on `challenges` (served first by the same
# workers, `-Q challenges,matches`, so a challenge never waits behind the ranked backlog).
ARMADA_MATCHES_QUEUE = env_str("ARMADA_MATCHES_QUEUE", "matches")
ARMADA_CHALLENGES_QUEUE = env_str("ARMADA_CHALLENGES_QUEUE", "challenges")
CELERY_TASK_ROUTES = {
    "armada_web.bots.validation.validate_version": {"queue": ARMADA_VALIDATION_QUEUE},
    "armada_web.matches.tasks.run_match": {"queue": ARMADA_MATCHES_QUEUE},
}
# A match runs at most 3 times (workers lost) before it is `failed`; one `running` (or
# `queued`) longer than this is re-queued by the reaper.
ARMADA_MATCH_ATTEMPTS = env_int("ARMADA_MATCH_ATTEMPTS", 3)
ARMADA_MATCH_STUCK_S = env_int("ARMADA_MATCH_STUCK_S", MATCH_TIME_LIMIT_S + 300)
# Galaxy engine config of platform matches, as JSON ({} = the rule book's defaults).
ARMADA_GALAXY_MATCH_CONFIG = env_str("ARMADA_GALAXY_MATCH_CONFIG", "{}")
# Matchmaking: live workers serving the matches queue (0 = ask the workers, Celery's inspect),
# and the expected seconds of one match (for the idle unit of matchmaking.priority).
ARMADA_MATCH_WORKERS = env_int("ARMADA_MATCH_WORKERS", 0)
ARMADA_MATCH_SECONDS = env_int("ARMADA_MATCH_SECONDS", 30)
ARMADA_MATCHMAKING_S = env_int("ARMADA_MATCHMAKING_S", 5)
# Ranked games in a row ended by a version's own fault before it is benched.
ARMADA_BENCH_FAULTS = env_int("ARMADA_BENCH_FAULTS", 5)
# Keeping data (manage.py prune_storage): replays and logs of unranked (challenge) matches are
# kept this many days after they finished; ranked ones as long as their bots exist. Files no row
# references (orphans) go once older than the grace (a running match saves its files before
# its row names them).
ARMADA_UNRANKED_KEEP_DAYS = env_int("ARMADA_UNRANKED_KEEP_DAYS", 30)
ARMADA_ORPHAN_GRACE_S = env_int("ARMADA_ORPHAN_GRACE_S", 86400)
# Challenges a user may start per hour, and per pair of bots per hour.
ARMADA_CHALLENGES_PER_HOUR = env_int("ARMADA_CHALLENGES_PER_HOUR", 30)
ARMADA_CHALLENGES_PER_PAIR_HOUR = env_int("ARMADA_CHALLENGES_PER_PAIR_HOUR", 5)
CELERY_BEAT_SCHEDULE = {
    "sweep-bot-containers": {
        "task": "armada_web.ops.tasks.sweep_containers",
        "schedule": 300.0,
    },
    "reap-validations": {
        "task": "armada_web.bots.validation.reap_validations",
        "schedule": 60.0,
    },
    "matchmaking": {
        "task": "armada_web.ladder.tasks.matchmaking",
        "schedule": float(ARMADA_MATCHMAKING_S),
        "options": {"expires": float(ARMADA_MATCHMAKING_S)},
    },
    "reap-matches": {
        "task": "armada_web.matches.tasks.reap_matches",
        "schedule": 60.0,
    },
    "sync-league": {
        "task": "armada_web.ladder.tasks.sync_league_task",
        "schedule": 120.0,
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
