"""Django settings, built from the typed settings object `config.load()` (every value that
differs between machines is a field of `armada_web.config.Config`, read once from the environment).

One-machine defaults: SQLite (WAL, busy timeout), Redis on localhost, files under `var/`.
Production sets DATABASE_URL (PostgreSQL, psycopg 3), REDIS_URL, SECRET_KEY, ALLOWED_HOSTS.
Code reads the site's own values as `settings.ARMADA.<field>`.
"""

from __future__ import annotations

import os

import dj_database_url

from armada.viewer import VIEWER_DIR
from armada_web.config import REPO_ROOT, ConfigError, load

try:
    ARMADA = load()
except ConfigError as exc:  # a wrong value stops the process at start, with one line naming it
    raise SystemExit(f"armada: {exc}") from None
DATA_DIR = ARMADA.data_path
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = ARMADA.debug
SECRET_KEY = ARMADA.secret_key or "dev-only-insecure-key-change-me-in-production"
ALLOWED_HOSTS = list(ARMADA.allowed_hosts)
CSRF_TRUSTED_ORIGINS = list(ARMADA.csrf_trusted_origins)

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
    "armada_web.seasons",
    "armada_web.events",
    "armada_web.notifications",
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
    "armada_web.pages.errors.DomainErrorMiddleware",
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
SQLITE_PATH = ARMADA.sqlite_path or str(DATA_DIR / "armada.sqlite3")
if ARMADA.database_url:
    DATABASES = {"default": dj_database_url.parse(ARMADA.database_url, conn_max_age=ARMADA.db_conn_max_age)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(SQLITE_PATH),
            # A file, not memory, so that worker and server processes started by tests share it;
            # named by process so that two test runs on one machine never share one.
            "TEST": {"NAME": str(DATA_DIR / f"test-{os.getpid()}.sqlite3")},
            "OPTIONS": {
                "timeout": ARMADA.sqlite_busy_timeout_s,
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
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
                    if ARMADA.static_compress
                    else "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-bots"
LOGOUT_REDIRECT_URL = "home"
EMAIL_BACKEND = ARMADA.email_backend
DEFAULT_FROM_EMAIL = ARMADA.default_from_email

# Throttles and caches: counters live in the cache, Redis by default so that every web
# process shares them (CACHE_URL=locmem:// keeps them in one process, for tests).
if ARMADA.cache_url.startswith("locmem"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": ARMADA.cache_url or ARMADA.redis_url,
                          "KEY_PREFIX": ARMADA.cache_prefix}}

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
        "anon": ARMADA.throttle_anon,
        "user": ARMADA.throttle_user,
    },
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

# Django's upload handling: keep small uploads in memory, refuse silly request bodies early.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

# Celery: broker and results in Redis; long tasks acknowledged late (a lost worker's task is
# delivered again, and its claim decides), Redis redelivering unacknowledged ones only after
# more than the longest match. Validation, ranked matches, challenges, finals and events have their own queues.
REDIS_URL = ARMADA.redis_url
CELERY_BROKER_URL = ARMADA.celery_broker_url or REDIS_URL
CELERY_RESULT_BACKEND = ARMADA.celery_result_backend or REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = ARMADA.match_time_limit_s + 120
CELERY_TASK_SOFT_TIME_LIMIT = ARMADA.match_time_limit_s + 60
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": ARMADA.match_time_limit_s * 2,
    # A worker takes the finals queue before any other, the others round robin (docs/arena.md).
    "queue_order_strategy": "armada_web.queue_order:FinalsFirst",
}
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_ALWAYS_EAGER = ARMADA.celery_task_always_eager
# Task modules not named tasks.py (which autodiscovery finds by itself): none.
CELERY_TASK_ROUTES = {
    "armada_web.bots.tasks.validate_version": {"queue": ARMADA.validation_queue},
    "armada_web.matches.tasks.run_match": {"queue": ARMADA.matches_queue},
}
CELERY_BEAT_SCHEDULE = {
    "sweep-bot-containers": {
        "task": "armada_web.ops.tasks.sweep_containers",
        "schedule": 300.0,
    },
    "reap-validations": {
        "task": "armada_web.bots.tasks.reap_validations",
        "schedule": 60.0,
    },
    "matchmaking": {
        "task": "armada_web.ladder.tasks.matchmaking",
        "schedule": float(ARMADA.matchmaking_s),
        "options": {"expires": float(ARMADA.matchmaking_s)},
    },
    "reap-matches": {
        "task": "armada_web.matches.tasks.reap_matches",
        "schedule": 60.0,
    },
    "sync-league": {
        "task": "armada_web.ladder.tasks.sync_league_task",
        "schedule": 120.0,
    },
    "seasons": {
        "task": "armada_web.seasons.tasks.seasons_tick",
        "schedule": float(ARMADA.seasons_tick_s),
        "options": {"expires": float(ARMADA.seasons_tick_s)},
    },
    "events": {
        "task": "armada_web.events.tasks.events_tick",
        "schedule": float(ARMADA.seasons_tick_s),
        "options": {"expires": float(ARMADA.seasons_tick_s)},
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": ARMADA.log_level},
}

REPO_DIR = REPO_ROOT
