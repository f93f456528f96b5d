"""Django settings, built from the typed settings object `config.load()` (every value that
differs between machines is a field of `armada_web.runtime.config.Config`, read once from the environment).

One-machine defaults: SQLite (WAL, busy timeout), Redis on localhost, files under `var/`.
Production sets DATABASE_URL (PostgreSQL, psycopg 3), REDIS_URL, SECRET_KEY, ALLOWED_HOSTS; with
DEBUG off `config.load` refuses a missing or weak SECRET_KEY, and the HTTPS-only settings (secure
cookies, HSTS, the redirect) are on unless ARMADA_HTTPS=false. Code reads the site's own values
as `settings.ARMADA.<field>`.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import dj_database_url
from whitenoise.compress import Compressor

from armada.docs import ROOT as DOCS_ROOT
from armada.viewer import VIEWER_DIR
from armada_web.jobs import queues
from armada_web.runtime.config import DEV_SECRET_KEY, REPO_ROOT, ConfigError, load
from armada_web.runtime.logs import logging_config
from armada_web.web import upload_temp
from armada_web.web.inputs import MAX_ID, USERNAME_PATTERN

try:
    ARMADA = load()
except ConfigError as exc:  # a wrong value stops the process at start, with one line naming it
    raise SystemExit(f"armada: {exc}") from None
DATA_DIR = ARMADA.data_path
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = ARMADA.debug
SECRET_KEY = ARMADA.secret_key or DEV_SECRET_KEY  # (load refuses the placeholder with DEBUG off)
SECRET_KEY_FALLBACKS = list(ARMADA.secret_key_fallbacks)
ALLOWED_HOSTS = list(ARMADA.allowed_hosts)
CSRF_TRUSTED_ORIGINS = list(ARMADA.csrf_trusted_origins)
# The site's "Form expired" page; under /api/ a JSON 403 (armada_web.pages.errors).
CSRF_FAILURE_VIEW = "armada_web.pages.errors.csrf_failure"

# HTTPS only (ARMADA_HTTPS; on by default with DEBUG off). The health check and the metrics are
# asked for over plain HTTP from inside the deployment (the container's health check, Prometheus),
# so they are never redirected; the TLS proxy in front is trusted only through the header named.
_HTTPS = ARMADA.https_only
SECURE_SSL_REDIRECT = _HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = _HTTPS
SECURE_HSTS_SECONDS = ARMADA.hsts_seconds if _HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = ARMADA.hsts_subdomains
SECURE_HSTS_PRELOAD = ARMADA.hsts_preload
if ARMADA.proxy_ssl_header:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + ARMADA.proxy_ssl_header.upper().replace("-", "_"), "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

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
    "armada_web.teams",
    "armada_web.bots",
    "armada_web.matches",
    "armada_web.ladder",
    "armada_web.seasons",
    "armada_web.events",
    "armada_web.integrity",
    "armada_web.notifications",
    "armada_web.api",
    "armada_web.pages",
]
if ARMADA.debug or ARMADA.devdata:  # development data (demo users and bots, scale seeds): never in production
    INSTALLED_APPS.append("armada_web.devdata")

MIDDLEWARE = [
    # Outermost: a refusal's unread body is read before the answer goes out (armada_web.web.inputs).
    "armada_web.web.inputs.DrainUnreadBody",
    # A body larger than its address takes is refused before the CSRF middleware reads it (armada_web.pages.errors).
    "armada_web.pages.errors.BodyLimit",
    # Every error under /api/ is JSON, whoever answered it (armada_web.api.errors).
    "armada_web.api.errors.JsonErrors",
    # A query parameter given twice under /api/ is a 400 (armada_web.api.parsers: none is an array).
    "armada_web.api.parsers.OneValueEach",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in user's answers are `Cache-Control: private` (armada_web.web.caching).
    "armada_web.web.caching.PrivateWhenSignedIn",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "armada_web.web.csp.ContentSecurityPolicyMiddleware",
    "armada_web.pages.errors.DomainErrorMiddleware",
    # A 405 outside /api/ is the site's page naming the button, not an empty body.
    "armada_web.pages.errors.MethodNotAllowedPage",
    "armada_web.ops.middleware.DatabaseDownMiddleware",
]

ROOT_URLCONF = "armada_web.urls"
WSGI_APPLICATION = "armada_web.wsgi.application"
ASGI_APPLICATION = "armada_web.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # the browsable API's pages with Armada's title (before rest_framework's own api.html)
        "DIRS": [os.path.join(os.path.dirname(os.path.abspath(__file__)), "api", "templates_first")],
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
# 24-hour times and ISO dates in the admin too, as the pages write them (web/formats/en/formats.py).
FORMAT_MODULE_PATH = ["armada_web.web.formats"]

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
# The replay viewer's files are served straight from the SDK (one code base, nothing copied).
# So are the images of its documents (docs/viewer.md's screenshots), which /docs/ pages show.
STATICFILES_DIRS = [("armada/viewer", str(VIEWER_DIR)), ("armada/docs-images", str(DOCS_ROOT / "images"))]
# The SDK wheel the /sdk/ page serves, built by `make up` (manage.py build_sdk_wheel).
ARMADA_SDK_DIR = DATA_DIR / "sdk"
# Uploaded archives, replays and bot logs are private (armada_web.storage.objectstore): a local folder
# outside any served one, or an S3-compatible bucket; only ever sent through views that check
# who may see them. There is no MEDIA_URL.
PRIVATE_ROOT = DATA_DIR / "private"
STORAGES = {
    "default": {
        "BACKEND": "armada_web.storage.objectstore.PrivateS3Storage",
        "OPTIONS": {"bucket_name": ARMADA.s3_bucket, "endpoint_url": ARMADA.s3_endpoint_url or None,
                    "addressing_style": ARMADA.s3_addressing_style, "timeout_s": ARMADA.s3_timeout_s},
    } if ARMADA.s3_bucket else {
        "BACKEND": "armada_web.storage.objectstore.PrivateFileStorage",
        "OPTIONS": {"location": str(PRIVATE_ROOT), "min_free_mb": ARMADA.storage_min_free_mb},
    },
    # Hashed, compressed names from `collectstatic` (make up, the app image); tests render without it.
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if "pytest" in sys.modules
                    else "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Source maps (4 MB of ReDoc's, 2 MB of Swagger UI's) are fetched only by a browser's developer tools:
# compressing them took most of `collectstatic`'s 24 s (and of every test site's start).
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-bots"
LOGOUT_REDIRECT_URL = "home"
EMAIL_BACKEND = ARMADA.email_backend
EMAIL_HOST, EMAIL_PORT = ARMADA.email_host, ARMADA.email_port
EMAIL_HOST_USER, EMAIL_HOST_PASSWORD = ARMADA.email_host_user, ARMADA.email_host_password
EMAIL_USE_TLS, EMAIL_USE_SSL = ARMADA.email_use_tls, ARMADA.email_use_ssl
EMAIL_TIMEOUT = 10  # (seconds) a mail server that hangs holds its mail's row and the worker no longer
DEFAULT_FROM_EMAIL = ARMADA.default_from_email

# Throttles and caches: counters live in the cache, Redis by default so that every web
# process shares them (CACHE_URL=locmem:// keeps them in one process, for tests).
CACHES: dict[str, dict[str, Any]]
if ARMADA.cache_url.startswith("locmem"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    # A Redis that is down makes the cache empty, never a request fail (armada_web.storage.resilient_cache).
    CACHES = {"default": {"BACKEND": "armada_web.storage.resilient_cache.ResilientRedisCache",
                          "LOCATION": ARMADA.cache_url or ARMADA.redis_url,
                          "KEY_PREFIX": ARMADA.cache_prefix,
                          "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2}}}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "armada_web.accounts.tokens.NamedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "armada_web.api.pagination.PageNumber",
    "PAGE_SIZE": 50,
    # A list refuses a query parameter it does not take (armada_web.api.params), then filters.
    "DEFAULT_FILTER_BACKENDS": ["armada_web.api.params.KnownParams",
                                "django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "armada_web.api.errors.exception_handler",
    # JSON bodies of bounded size and depth (api/parsers.py), and only JSON: the schema's bodies are
    # typed JSON (a form's fields are all strings); the upload takes its multipart form (api/bots.py).
    "DEFAULT_PARSER_CLASSES": ["armada_web.api.parsers.LimitedJSONParser"],
    # JSON, and DRF's browsable pages under the site's CSP (api/renderers.py).
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer", "armada_web.api.renderers.BrowsableAPI"],
    "DEFAULT_THROTTLE_CLASSES": [
        "armada_web.api.throttles.AnonThrottle",
        "armada_web.api.throttles.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": ARMADA.throttle_anon,
        "user": ARMADA.throttle_user,
        "dataset": ARMADA.throttle_dataset,
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
    # `<id:...>` in a path (armada_web.web.inputs): a positive 63-bit integer.
    # Enums as components (drf-spectacular's default hook); an empty query parameter is one not given.
    # One enum of the games, whether a serializer's ChoiceField or a typed JSON field states it.
    "ENUM_NAME_OVERRIDES": {"GameEnum": "armada_web.bots.models.Game"},
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "armada_web.api.schema.empty_is_not_given", "armada_web.api.schema.known_fields_only"],
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_ID},
                                 "username": {"type": "string", "pattern": f"^{USERNAME_PATTERN}$"}},
}
API_VERSION = 1

# Django's upload handling: keep small uploads in memory, refuse silly request bodies early.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
# A larger body waits in a file of the site's own folder, which the web server's master sweeps of
# what a killed worker left (web/upload_temp.py).
FILE_UPLOAD_TEMP_DIR = str(upload_temp.folder(DATA_DIR))

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
    "socket_connect_timeout": 3,
    # A worker takes the finals queue before any other, the others round robin (docs/arena.md).
    "queue_order_strategy": "armada_web.jobs.queue_order:FinalsFirst",
}
CELERY_RESULT_EXPIRES = 3600
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 3
CELERY_TASK_ALWAYS_EAGER = ARMADA.celery_task_always_eager
# Redis down: workers and beat wait for it with back-off for as long as it takes (never exit);
# running tasks go on; a web request's send gives up within about two seconds (uploads answer 503).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 3, "interval_start": 0.2, "interval_step": 0.4, "interval_max": 1.0}
# The queues and task names are declared once, in armada_web.jobs.queues.
CELERY_TASK_DEFAULT_QUEUE = queues.default_queue(ARMADA)
CELERY_TASK_ROUTES = queues.routes(ARMADA)
# Periodic jobs (queue ARMADA_PERIODIC_QUEUE): the reapers often enough that a lost worker or a
# lost message costs about a minute (docs/arena.md), the sweeper, matchmaking, the league's sync.
CELERY_BEAT_SCHEDULE = {
    "sweep-bot-containers": {
        "task": queues.Task.SWEEP_CONTAINERS.value,
        "schedule": float(ARMADA.sweep_s),
        "options": {"expires": float(ARMADA.sweep_s)},
    },
    "reap-validations": {
        "task": queues.Task.REAP_VALIDATIONS.value,
        "schedule": float(ARMADA.reap_s),
        "options": {"expires": float(ARMADA.reap_s)},
    },
    "reap-matches": {
        "task": queues.Task.REAP_MATCHES.value,
        "schedule": float(ARMADA.reap_s),
        "options": {"expires": float(ARMADA.reap_s)},
    },
    "sync-league": {
        "task": queues.Task.SYNC_LEAGUE.value,
        "schedule": 120.0,
    },
    "repair-standing": {
        "task": queues.Task.REPAIR_PLAYING.value,
        "schedule": 600.0,
    },
    "seasons": {
        "task": queues.Task.SEASONS_TICK.value,
        "schedule": float(ARMADA.seasons_tick_s),
        "options": {"expires": float(ARMADA.seasons_tick_s)},
    },
    "events": {
        "task": queues.Task.EVENTS_TICK.value,
        "schedule": float(ARMADA.seasons_tick_s),
        "options": {"expires": float(ARMADA.seasons_tick_s)},
    },
    # The mails whose send after their event's commit failed (accounts.mail, an outbox).
    "send-pending-mail": {
        "task": queues.Task.SEND_MAIL.value,
        "schedule": 60.0,  # accounts.mail.MAIL_EVERY_S
        "options": {"expires": 60.0},
    },
    # A closed season's integrity checks whose message was lost (integrity.tasks.integrity_catch_up).
    "integrity-catch-up": {
        "task": queues.Task.INTEGRITY_CATCH_UP.value,
        "schedule": 600.0,
        "options": {"expires": 600.0},
    },
}
if ARMADA.matchmaking_s:
    CELERY_BEAT_SCHEDULE["matchmaking"] = {
        "task": queues.Task.MATCHMAKING.value,
        "schedule": float(ARMADA.matchmaking_s),
        "options": {"expires": float(ARMADA.matchmaking_s)},
    }

# Every line to standard error, as text or JSON (ARMADA_LOG_FORMAT), with its task's match or
# version id (armada_web.runtime.logs); the Celery workers use the same configuration (armada_web.celery).
LOGGING = logging_config(ARMADA.log_format, ARMADA.log_level)

REPO_DIR = REPO_ROOT
