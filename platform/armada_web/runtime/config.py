"""The site's settings as one typed object, read from the environment once at start-up.

Each field of `Config` names its environment variable, default and meaning in one place; `load`
parses every one (integers, booleans, lists, JSON objects), checks ranges and the per-game
values with the engines' own parsers, and raises `ConfigError` naming the variable, so a
wrong value stops the web server, a worker or `manage.py` at start instead of voiding
matches later. `settings.py` builds Django's settings from it and keeps it as
`settings.ARMADA`; code reads `settings.ARMADA.<field>`; tests replace it with `config.with_(...)`.
`variables()` lists every variable (docs/deploy.md's table is checked against it).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from armada.games.base import ConfigError as EngineConfigError
from armada.referee.clock import Limits
from armada.referee.environment import SEED_KEY_VARIABLE
from armada_sandbox import DEFAULT_BOT_IMAGE, SandboxLimits, limits_for
from armada_web.games import SPECS

#: The repository root (manage.py), from platform/armada_web/runtime/config.py.
REPO_ROOT = Path(__file__).resolve().parents[3]
#: The key a developer's site runs on (DEBUG on, no SECRET_KEY): refused with DEBUG off.
DEV_SECRET_KEY = "dev-only-insecure-key-change-me-in-production"  # noqa: S105 (refused when it matters)


class ConfigError(RuntimeError):
    """A setting's value is wrong; the message names the variable."""


def setting(env: str, default: Any, help: str, *, minimum: int | None = None) -> Any:  # noqa: A002
    """A field read from environment variable `env` (unset or empty: `default`)."""
    return field(default=default, metadata={"env": env, "help": help, "minimum": minimum})


#: The bot seeds' key (ARMADA_BOT_SEED_KEY, D-R-8) is refused shorter than this with DEBUG off
#: (`make up` and the compose example make 64 hex digits).
BOT_SEED_KEY_MIN_CHARS = 32
#: Fewer characters than this (or a key Django calls weak) is refused with DEBUG off.
SECRET_KEY_MIN_CHARS = 50
#: Every check /healthz knows (armada_web.ops.health), in the order it runs them.
HEALTH_CHECKS = ("database", "redis", "storage", "docker")
LOG_FORMATS = ("text", "json")
#: What ARMADA_HOST_NAME may be: the host part of a Celery node name (`name@host`), a label.
HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
ADDRESSING_STYLES = ("auto", "path", "virtual")
#: Where a season's finals ratings start (ARMADA_FINALS_START).
FINALS_STARTS = ("ladder", "prior")


@dataclass(frozen=True)
class GameConfig:
    """The values of one game on this deployment (ARMADA_<GAME>_*)."""

    match_config: dict[str, Any]
    validation_config: dict[str, Any]
    times: Limits
    sandbox: SandboxLimits
    #: The largest version (uploaded zip or file) and its largest unpacked size, in bytes
    #: (ARMADA_<GAME>_UPLOAD_MAX_BYTES, _UNPACKED_MAX_BYTES; None: the site's, `Config.upload_limit`).
    upload_max_bytes: int | None = None
    unpacked_max_bytes: int | None = None


@dataclass(frozen=True)
class Config:
    """Every setting of the site, workers and beat that may differ between deployments."""

    # -- the deployment
    debug: bool = setting("DEBUG", True, "Django's debug mode (technical error pages): never on a public site; "
                          "off, the site refuses to start without a SECRET_KEY of its own")
    devdata: bool = setting("ARMADA_DEVDATA", False, "install the development data app (demo bots: `seed_demo`, "
                            "`ensure_demo_admin`; `seed_scale`) with DEBUG off; on whenever DEBUG is")
    secret_key: str = setting("SECRET_KEY", "", "Django's secret key (sessions, password reset links): at least "
                              f"{SECRET_KEY_MIN_CHARS} random characters, the same on every host")
    secret_key_fallbacks: tuple[str, ...] = setting("SECRET_KEY_FALLBACKS", (), "earlier secret keys still accepted "
                                                    "while their sessions and links expire (comma-separated)")
    https: bool | None = setting("ARMADA_HTTPS", None, "HTTPS only: secure cookies, HSTS, the redirect to https:// "
                                 "(empty: on when DEBUG is off)")
    proxy_ssl_header: str = setting("ARMADA_PROXY_SSL_HEADER", "", "the header the TLS proxy in front sets to "
                                    "`https`, e.g. X-Forwarded-Proto (empty: no proxy is trusted)")
    hsts_seconds: int = setting("ARMADA_HSTS_SECONDS", 31536000, "HSTS max-age when HTTPS is on", minimum=0)
    hsts_subdomains: bool = setting("ARMADA_HSTS_SUBDOMAINS", True, "HSTS covers the site's subdomains too")
    hsts_preload: bool = setting("ARMADA_HSTS_PRELOAD", True, "HSTS allows the browsers' preload lists")
    allowed_hosts: tuple[str, ...] = setting("ALLOWED_HOSTS", ("localhost", "127.0.0.1", "[::1]", "testserver"),
                                       "host names the site answers to (comma-separated)")
    csrf_trusted_origins: tuple[str, ...] = setting("CSRF_TRUSTED_ORIGINS", (),
                                              "origins allowed to POST forms, e.g. https://armada.example")
    site_url: str = setting("ARMADA_SITE_URL", "", "the site's address as its users reach it, e.g. "
                            "https://armada.example (the links of every e-mail: notifications, address confirmations, "
                            "password resets; `make up` sets it; empty: the host a request came to for the web's "
                            "mails, the first of ALLOWED_HOSTS for the workers', https when ARMADA_HTTPS is on)")
    data_dir: str = setting("ARMADA_DATA_DIR", str(REPO_ROOT / "var"),
                            "local state: SQLite database, private files, logs, the SDK wheel (the infra scripts make "
                            "it 0700: give one of the site's own)")
    database_url: str = setting("DATABASE_URL", "", "PostgreSQL, e.g. postgresql://user:pw@host:5432/armada "
                                "(empty: SQLite in the data folder)")
    sqlite_path: str = setting("ARMADA_SQLITE_PATH", "", "the SQLite file (empty: DATA_DIR/armada.sqlite3)")
    db_conn_max_age: int = setting("DB_CONN_MAX_AGE", 60, "seconds a database connection is kept", minimum=0)
    sqlite_busy_timeout_s: int = setting("SQLITE_BUSY_TIMEOUT_S", 20, "seconds a SQLite writer waits for the lock",
                                         minimum=1)
    redis_url: str = setting("REDIS_URL", "redis://127.0.0.1:6379/0", "Redis: Celery's broker and results, the cache")
    cache_url: str = setting("CACHE_URL", "", "the cache (empty: REDIS_URL; locmem:// keeps it in one process)")
    cache_prefix: str = setting("CACHE_PREFIX", "armada", "key prefix in the cache")
    celery_broker_url: str = setting("CELERY_BROKER_URL", "", "Celery's broker (empty: REDIS_URL)")
    celery_result_backend: str = setting("CELERY_RESULT_BACKEND", "", "Celery's results (empty: REDIS_URL)")
    celery_task_always_eager: bool = setting("CELERY_TASK_ALWAYS_EAGER", False,
                                             "run tasks in the caller's process (tests only)")
    email_backend: str = setting("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend",
                                 "Django's mail backend (console: each mail goes to the log of the process that "
                                 "sends it: \"Mails with the console backend\" above)")
    default_from_email: str = setting("DEFAULT_FROM_EMAIL", "armada@localhost", "sender of the site's mails")
    email_host: str = setting("EMAIL_HOST", "localhost", "the mail server (with EMAIL_BACKEND "
                              "django.core.mail.backends.smtp.EmailBackend)")
    email_port: int = setting("EMAIL_PORT", 25, "the mail server's port (587 with EMAIL_USE_TLS, 465 with "
                              "EMAIL_USE_SSL)", minimum=1)
    email_host_user: str = setting("EMAIL_HOST_USER", "", "the mail server's user name (empty: none)")
    email_host_password: str = setting("EMAIL_HOST_PASSWORD", "", "the mail server's password")
    email_use_tls: bool = setting("EMAIL_USE_TLS", False, "STARTTLS to the mail server")
    email_use_ssl: bool = setting("EMAIL_USE_SSL", False, "TLS from the start (not with EMAIL_USE_TLS)")
    log_level: str = setting("LOG_LEVEL", "INFO", "the root logger's level")
    log_format: str = setting("ARMADA_LOG_FORMAT", "text", "log lines as `text` or `json` (one object a line, "
                              "with the match or version id of the task)")
    # -- operating it
    health_checks: tuple[str, ...] = setting("ARMADA_HEALTH_CHECKS", HEALTH_CHECKS, "what /healthz checks here "
                                             "(the web container: database,redis,storage)")
    metrics_allow: tuple[str, ...] = setting("ARMADA_METRICS_ALLOW", (), "client addresses or networks that may "
                                             "read /metrics without signing in (staff always may)")
    # -- storage
    s3_bucket: str = setting("ARMADA_S3_BUCKET", "", "object storage: the bucket of archives, replays and logs "
                             "(empty: local files in DATA_DIR/private)")
    s3_endpoint_url: str = setting("ARMADA_S3_ENDPOINT_URL", "", "an S3-compatible store's URL (empty: AWS)")
    s3_addressing_style: str = setting("ARMADA_S3_ADDRESSING_STYLE", "auto",
                                       "`auto`, `path` or `virtual` bucket addressing")
    s3_timeout_s: int = setting("ARMADA_S3_TIMEOUT_S", 10, "seconds to connect to (and to read from) the store",
                                minimum=1)
    storage_min_free_mb: int = setting("ARMADA_STORAGE_MIN_FREE_MB", 200,
                                       "local storage: /healthz fails with less free space", minimum=0)
    log_max_bytes: int = setting("ARMADA_LOG_MAX_BYTES", 10 * 1024 * 1024,
                                 "size at which `make up`'s log files are rotated", minimum=1024)
    log_backups: int = setting("ARMADA_LOG_BACKUPS", 5, "rotated log files kept per process", minimum=1)
    # -- accounts
    throttle_anon: str = setting("THROTTLE_ANON", "600/min", "API requests per anonymous client")
    throttle_user: str = setting("THROTTLE_USER", "1200/min", "API requests per signed-in user")
    throttle_dataset: str = setting("THROTTLE_DATASET", "3000/hour", "requests of the replays' list and replay "
                                    "files (bulk downloads) per user, or per anonymous client")
    login_failures_per_ip: int = setting("ARMADA_LOGIN_FAILURES_PER_IP", 30,
                                         "failed password checks per client address per window", minimum=1)
    login_failures_per_user: int = setting("ARMADA_LOGIN_FAILURES_PER_USER", 10,
                                           "failed password checks per username per window", minimum=1)
    login_failure_window_s: int = setting("ARMADA_LOGIN_FAILURE_WINDOW_S", 900,
                                          "the window of the two limits above, in seconds", minimum=1)
    signups_per_hour: int = setting("ARMADA_SIGNUPS_PER_HOUR", 30,
                                    "new accounts per client address per hour (a class behind one address: raise it)",
                                    minimum=1)
    resets_per_hour: int = setting("ARMADA_PASSWORD_RESETS_PER_HOUR", 5,
                                   "password-reset mails asked for one e-mail address per hour", minimum=1)
    max_tokens: int = setting("ARMADA_MAX_TOKENS", 50, "API tokens a user may hold at once", minimum=1)
    trusted_proxies: tuple[str, ...] = setting(
        "ARMADA_TRUSTED_PROXIES", (), "addresses or networks (CIDR) of the reverse proxies in front of the site, "
        "comma-separated: only from these is X-Forwarded-For believed (empty: the client is REMOTE_ADDR)")
    # -- the API's request bodies
    api_json_max_bytes: int = setting("ARMADA_API_JSON_MAX_BYTES", 64 * 1024, "largest JSON body of an API request",
                                      minimum=2)
    api_json_max_depth: int = setting("ARMADA_API_JSON_MAX_DEPTH", 16, "deepest nesting of a JSON body (arrays "
                                      "and objects)", minimum=1)
    # -- bots and uploads
    max_bots_per_game: int = setting("ARMADA_MAX_BOTS_PER_GAME", 5, "bots a team may have per game (retired ones "
                                     "do not count)", minimum=1)
    team_max_members: int = setting("ARMADA_TEAM_MAX_MEMBERS", 4, "members a team may have at once (a personal "
                                    "team has one)", minimum=1)
    teams_per_user: int = setting("ARMADA_TEAMS_PER_USER", 3, "shared teams a user may be in at once (their "
                                  "personal team aside): each team has its own bot limit", minimum=1)
    uploads_per_hour: int = setting("ARMADA_UPLOADS_PER_HOUR", 20,
                                    "uploads per hour per team, and per account over all its teams", minimum=1)
    upload_max_bytes: int = setting("ARMADA_UPLOAD_MAX_BYTES", 100 * 1024 * 1024, "largest upload (a version: "
                                    "code and model files; ARMADA_<GAME>_UPLOAD_MAX_BYTES: one game's)", minimum=1)
    unpacked_max_bytes: int = setting("ARMADA_UNPACKED_MAX_BYTES", 200 * 1024 * 1024, "largest unpacked upload "
                                      "(ARMADA_<GAME>_UNPACKED_MAX_BYTES: one game's)", minimum=1)
    upload_max_files: int = setting("ARMADA_UPLOAD_MAX_FILES", 200, "most entries in an uploaded zip", minimum=1)
    # -- validation
    validation_queue: str = setting("ARMADA_VALIDATION_QUEUE", "validation", "Celery queue of validations")
    validation_attempts: int = setting("ARMADA_VALIDATION_ATTEMPTS", 3,
                                       "runs before a platform failure makes a version `error`", minimum=1)
    validation_stuck_s: int = setting("ARMADA_VALIDATION_STUCK_S", 600,
                                      "seconds a validation may run (or wait) before the reaper acts", minimum=1)
    validation_retry_s: int = setting("ARMADA_VALIDATION_RETRY_S", 10,
                                      "seconds before a validation is tried again after a platform failure", minimum=0)
    unpack_cache_dir: str = setting("ARMADA_UNPACK_CACHE_DIR", "", "a worker host's cache of unpacked versions "
                                    "(empty: armada-versions in the system's temporary folder, beside the sandbox's "
                                    "work folders: the same file system)")
    unpack_cache_mb: int = setting("ARMADA_UNPACK_CACHE_MB", 4096, "largest size of that cache in MiB (least "
                                   "recently used versions are removed past it)", minimum=1)
    # -- matches
    matches_queue: str = setting("ARMADA_MATCHES_QUEUE", "matches", "Celery queue of ranked matches")
    challenges_queue: str = setting("ARMADA_CHALLENGES_QUEUE", "challenges",
                                    "Celery queue of challenges (served before the ranked one)")
    match_time_limit_s: int = setting("MATCH_TIME_LIMIT_S", 1800, "longest a match may run, in seconds", minimum=1)
    match_attempts: int = setting("ARMADA_MATCH_ATTEMPTS", 3, "runs of a match (lost workers) before it is `failed`",
                                  minimum=1)
    match_stuck_s: int = setting("ARMADA_MATCH_STUCK_S", 0, "seconds a match may run (or wait) before the reaper "
                                 "acts (0: MATCH_TIME_LIMIT_S + 300)", minimum=0)
    bot_image: str = setting("ARMADA_BOT_IMAGE", DEFAULT_BOT_IMAGE, "the Docker image bots run in")
    host_name: str = setting("ARMADA_HOST_NAME", "", "this worker host's name: the host part of its Celery "
                             "workers' node names, recorded on each match it claims and shown on /status/ and "
                             "/metrics (empty: the machine's host name)")
    worker_sandbox_check_s: int = setting("ARMADA_WORKER_SANDBOX_CHECK_S", 5, "seconds between a worker's checks "
                                          "of its sandbox (failing: it stops taking games)", minimum=1)
    # -- jobs that workers run (validation and matches): leases, heartbeats, the reaper
    heartbeat_s: int = setting("ARMADA_HEARTBEAT_S", 10, "seconds between two heartbeats of a running job",
                               minimum=1)
    heartbeat_timeout_s: int = setting("ARMADA_HEARTBEAT_TIMEOUT_S", 60, "a running job whose heartbeat is older "
                                       "is given back to the queue (its worker is lost)", minimum=1)
    lost_message_s: int = setting("ARMADA_LOST_MESSAGE_S", 15, "seconds a waiting job's message may be missing "
                                  "from the broker before it is sent again", minimum=1)
    reap_s: int = setting("ARMADA_REAP_S", 10, "seconds between two runs of the reaper (beat)", minimum=1)
    sweep_s: int = setting("ARMADA_SWEEP_S", 60, "seconds between two runs of the container sweeper (beat)",
                           minimum=1)
    periodic_queue: str = setting("ARMADA_PERIODIC_QUEUE", "celery", "Celery queue of the periodic jobs (beat)")
    sandbox_wait_s: int = setting("ARMADA_SANDBOX_WAIT_S", 60, "seconds a worker waits for the sandbox (Docker) "
                                  "to come back before a job fails", minimum=0)
    db_retry_s: int = setting("ARMADA_DB_RETRY_S", 30, "seconds a worker keeps retrying the database to record "
                              "a job it played", minimum=0)
    # -- the ladder
    match_workers: int = setting("ARMADA_MATCH_WORKERS", 0, "match workers matchmaking plans for "
                                 "(0: ask the live workers)", minimum=0)
    match_seconds: int = setting("ARMADA_MATCH_SECONDS", 30, "expected seconds of one match until 3 ranked matches "
                                 "of a game have finished (then measured)", minimum=1)
    matchmaking_s: int = setting("ARMADA_MATCHMAKING_S", 5, "seconds between two matchmaking ticks (0: no "
                                 "matchmaking)", minimum=0)
    bench_faults: int = setting("ARMADA_BENCH_FAULTS", 5, "ranked games in a row ended by a version's own fault "
                                "before it is benched", minimum=1)
    challenges_per_hour: int = setting("ARMADA_CHALLENGES_PER_HOUR", 30,
                                       "challenges a team may start per hour, and an account over all its teams",
                                       minimum=0)
    challenges_per_pair_hour: int = setting("ARMADA_CHALLENGES_PER_PAIR_HOUR", 5,
                                            "challenges between two bots per hour", minimum=0)
    # -- seasons, finals and events (docs/seasons.md)
    finals_queue: str = setting("ARMADA_FINALS_QUEUE", "finals", "Celery queue of a season's finals matches "
                                "(the match workers take it before every other queue)")
    events_queue: str = setting("ARMADA_EVENTS_QUEUE", "events", "Celery queue of private events' matches "
                                "(shared round robin with the ranked queue)")
    seasons_tick_s: int = setting("ARMADA_SEASONS_TICK_S", 10, "seconds between two beat ticks of seasons and "
                                  "events (times, finals stages, event matches)", minimum=1)
    finals_stages: int = setting("ARMADA_FINALS_STAGES", 6, "stages of a season's finals", minimum=1)
    finals_games: int = setting("ARMADA_FINALS_GAMES", 20, "games each entry plays in each stage of the finals",
                                minimum=1)
    finals_cuts: tuple[float, ...] = setting("ARMADA_FINALS_CUTS", (0.8,), "fraction of the entries cut after "
                                             "each stage but the last (comma-separated; the last one repeats)")
    finals_keep_min: int = setting("ARMADA_FINALS_KEEP_MIN", 10, "a cut never leaves fewer entries", minimum=2)
    finals_start: str = setting("ARMADA_FINALS_START", "ladder", "where finals ratings start: `ladder` (the "
                                "ladder's mu at the close, sigma raised) or `prior` (everyone at 25, 25/3)")
    finals_share: int = setting("ARMADA_FINALS_SHARE", 50, "percent of the match workers a season's finals take "
                                "at least (more when they need more to finish by the season's end)", minimum=1)
    events_per_day: int = setting("ARMADA_EVENTS_PER_DAY", 5, "events a user may create per day", minimum=0)
    event_entries_per_day: int = setting("ARMADA_EVENT_ENTRIES_PER_DAY", 20, "event entries a user may make per "
                                         "day", minimum=0)
    event_max_entrants: int = setting("ARMADA_EVENT_MAX_ENTRANTS", 32, "largest number of entrants an event may "
                                      "have (and its default)", minimum=2)
    event_max_games_per_pair: int = setting("ARMADA_EVENT_MAX_GAMES_PER_PAIR", 10, "most games per pair of a "
                                            "round robin event", minimum=1)
    # -- keeping data
    unranked_keep_days: int = setting("ARMADA_UNRANKED_KEEP_DAYS", 30,
                                      "days the replays and logs of challenges and private events are kept", minimum=0)
    orphan_grace_s: int = setting("ARMADA_ORPHAN_GRACE_S", 86400,
                                  "age after which a stored file no row names is deleted", minimum=0)
    sightings_keep_days: int = setting("ARMADA_SIGHTINGS_KEEP_DAYS", 180, "days the client addresses of sign-ups, "
                                       "sign-ins and API token uses are kept (integrity checks)", minimum=1)
    #: Per game (ARMADA_<GAME>_MATCH_CONFIG, _VALIDATION_TURNS, _INIT_MS, _TURN_MS, _BANK_MS; the
    #: sandbox's ARMADA_SANDBOX_[<GAME>_]<FIELD>): filled in by `load`.
    games: dict[str, GameConfig] = field(default_factory=dict)

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).resolve()

    @property
    def https_only(self) -> bool:
        """Whether the HTTPS-only settings are on (ARMADA_HTTPS, by default when DEBUG is off)."""
        return (not self.debug) if self.https is None else self.https

    @property
    def worker_host(self) -> str:
        """This host's name (ARMADA_HOST_NAME, else the machine's): what a match it claims records."""
        return self.host_name or default_host_name()

    @property
    def stuck_match_s(self) -> int:
        """Seconds after which the reaper takes a running or queued match back."""
        return self.match_stuck_s or self.match_time_limit_s + 300

    def game(self, slug: str) -> GameConfig:
        """The values of game `slug`; KeyError naming the configured games for any other."""
        try:
            return self.games[slug]
        except KeyError:
            raise KeyError(f"no settings for game {slug!r}; configured: {', '.join(sorted(self.games))}") from None

    def upload_limit(self, slug: str | None = None) -> tuple[int, int]:
        """The largest upload and its largest unpacked size of game `slug` in bytes (None: the
        largest of any game, what a stored archive is checked against when it is unpacked)."""
        games = [self.games[slug]] if slug in self.games else list(self.games.values()) if slug is None else []
        uploads = [g.upload_max_bytes or self.upload_max_bytes for g in games] or [self.upload_max_bytes]
        unpacked = [g.unpacked_max_bytes or self.unpacked_max_bytes for g in games] or [self.unpacked_max_bytes]
        return max(uploads), max(unpacked)

    def with_(self, **changes: Any) -> Config:
        """A copy with some fields changed (tests: `settings.ARMADA = settings.ARMADA.with_(...)`)."""
        return dataclasses.replace(self, **changes)

    def with_game(self, slug: str, **changes: Any) -> Config:
        """A copy with some values of one game changed."""
        games = {**self.games, slug: dataclasses.replace(self.game(slug), **changes)}
        return dataclasses.replace(self, games=games)


@dataclass(frozen=True)
class Variable:
    """One environment variable of the site: its name, default (as text) and meaning."""

    name: str
    default: str
    help: str


def _parse(name: str, kind: Any, raw: str, minimum: int | None) -> Any:
    if kind is bool or kind == bool | None:
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"environment variable {name} must be true or false, got {raw!r}")
    if kind is int:
        if not re.fullmatch(r"-?[0-9]+", raw.strip()):
            raise ConfigError(f"environment variable {name} must be an integer, got {raw!r}")
        value = int(raw)
        if minimum is not None and value < minimum:
            raise ConfigError(f"environment variable {name} must be at least {minimum}, got {value}")
        return value
    if kind == tuple[str, ...]:
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    if kind == tuple[float, ...]:
        try:
            numbers = tuple(float(part) for part in raw.split(",") if part.strip())
        except ValueError:
            raise ConfigError(f"environment variable {name} must be comma-separated numbers, got {raw!r}") from None
        if not numbers or any(not 0.0 <= n < 1.0 for n in numbers):
            raise ConfigError(f"environment variable {name} must hold fractions from 0 to below 1, got {raw!r}")
        return numbers
    return raw


def _json_object(name: str, raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(f"environment variable {name} is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ConfigError(f"environment variable {name} must be a JSON object, got {type(value).__name__}")
    return value


def _game_config(slug: str, env: Mapping[str, str]) -> GameConfig:
    game = SPECS[slug]
    prefix = f"ARMADA_{slug.upper()}_"
    match_name = prefix + "MATCH_CONFIG"
    match_config = _json_object(match_name, env.get(match_name) or "{}")
    validation: dict[str, Any] = {}
    if game.validation_turns is not None:
        validation["max_turns"] = _parse(prefix + "VALIDATION_TURNS", int,
                                         env.get(prefix + "VALIDATION_TURNS") or str(game.validation_turns), 1)
    for name, config in ((match_name, match_config), (prefix + "VALIDATION_TURNS", {**match_config, **validation})):
        try:
            game.engine.parse_config(config)
        except (EngineConfigError, ValueError, TypeError) as exc:
            raise ConfigError(f"environment variable {name}: {exc}") from None
    defaults = game.default_times
    times = {part: _parse(prefix + part.upper(), int, env.get(prefix + part.upper()) or str(getattr(defaults, part)),
                          None) for part in ("init_ms", "turn_ms", "bank_ms")}
    try:
        limits = Limits(**times)
    except ValueError as exc:
        raise ConfigError(f"environment variables {prefix}INIT_MS/TURN_MS/BANK_MS: {exc}") from None
    try:
        sandbox = limits_for(slug, env=env)
    except ValueError as exc:
        raise ConfigError(f"environment variables ARMADA_SANDBOX_*: {exc}") from None
    sizes = {part: _parse(prefix + part.upper(), int, env[prefix + part.upper()], 1)
             for part in ("upload_max_bytes", "unpacked_max_bytes") if env.get(prefix + part.upper())}
    return GameConfig(match_config=match_config, validation_config={**match_config, **validation},
                      times=limits, sandbox=sandbox, **sizes)


def default_host_name() -> str:
    """The machine's host name (what Celery's `%h` is), as ARMADA_HOST_NAME's default."""
    return socket.gethostname()[:100] or "localhost"


def load(env: Mapping[str, str] | None = None) -> Config:
    """The settings from `env` (default: this process's environment); ConfigError naming the
    variable when one is wrong."""
    env = os.environ if env is None else env
    hints = get_type_hints(Config)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(Config):
        if "env" not in f.metadata:
            continue
        raw = env.get(f.metadata["env"])
        if raw:
            values[f.name] = _parse(f.metadata["env"], hints[f.name], raw, f.metadata["minimum"])
    values["games"] = {slug: _game_config(slug, env) for slug in SPECS}
    if "host_name" in values and not HOST_NAME.fullmatch(values["host_name"]):
        raise ConfigError("environment variable ARMADA_HOST_NAME must be a name of letters, digits, '.', '_' and '-' "
                          f"(at most 100, no '@'), e.g. worker-2, got {values['host_name']!r}")
    values.setdefault("host_name", default_host_name())  # the machine's, read here: never a default in the docs
    config = Config(**values)
    _check_choices(config)
    if not config.debug:
        _check_production(config, env)
    return config


def _check_choices(config: Config) -> None:
    """Values that must be one of a list, or addresses."""
    for name, value, choices in (("ARMADA_LOG_FORMAT", config.log_format, LOG_FORMATS),
                                 ("ARMADA_S3_ADDRESSING_STYLE", config.s3_addressing_style, ADDRESSING_STYLES),
                                 ("ARMADA_FINALS_START", config.finals_start, FINALS_STARTS)):
        if value not in choices:
            raise ConfigError(f"environment variable {name} must be one of {', '.join(choices)}, got {value!r}")
    if config.finals_share > 100:
        raise ConfigError(f"environment variable ARMADA_FINALS_SHARE must be at most 100, got {config.finals_share}")
    unknown = [name for name in config.health_checks if name not in HEALTH_CHECKS]
    if unknown:
        raise ConfigError(f"environment variable ARMADA_HEALTH_CHECKS: unknown check {unknown[0]!r} "
                          f"(known: {', '.join(HEALTH_CHECKS)})")
    for entry in config.metrics_allow:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ConfigError(f"environment variable ARMADA_METRICS_ALLOW: {entry!r} is not an address or "
                              "network (e.g. 10.0.0.5 or 10.0.0.0/24)") from None
    for proxy in config.trusted_proxies:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            raise ConfigError(f"environment variable ARMADA_TRUSTED_PROXIES: {proxy!r} is neither an address "
                              "nor a network (e.g. 10.0.0.1 or 10.0.0.0/8)") from None
    if config.site_url and not re.fullmatch(r"https?://[^\s/?#]+", config.site_url.rstrip("/")):
        raise ConfigError("environment variable ARMADA_SITE_URL must be the site's address such as "
                          f"https://armada.example or http://10.0.0.5:8000 (no path), got {config.site_url!r}")
    if config.email_use_tls and config.email_use_ssl:  # (Django refuses it at the first mail, too late)
        raise ConfigError("environment variables EMAIL_USE_TLS and EMAIL_USE_SSL: set one of them, not both "
                          "(STARTTLS, usually port 587, or TLS from the start, usually 465)")
    header = config.proxy_ssl_header
    if header and not re.fullmatch(r"[A-Za-z0-9-]+", header):
        raise ConfigError(f"environment variable ARMADA_PROXY_SSL_HEADER must be a header name such as "
                          f"X-Forwarded-Proto, got {header!r}")


def weak_key_problem(key: str) -> str | None:
    """Why `key` is no secret key for a public site (None when it is fine): what Django's deploy
    check calls weak, and the development placeholder."""
    if not key:
        return "is not set"
    if key == DEV_SECRET_KEY or key.startswith("django-insecure-"):
        return "is the development placeholder"
    if len(key) < SECRET_KEY_MIN_CHARS or len(set(key)) < 5:
        return f"is too weak ({len(key)} characters, {len(set(key))} different; at least {SECRET_KEY_MIN_CHARS})"
    return None


def _check_production(config: Config, env: Mapping[str, str]) -> None:
    """With DEBUG off the site never runs on a key anyone could know."""
    generate = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
    problem = weak_key_problem(config.secret_key)
    if problem:
        raise ConfigError(f"environment variable SECRET_KEY {problem}: with DEBUG off the site needs a secret key "
                          f"of its own (make one with {generate}; DEBUG=true on a developer's machine)")
    for key in config.secret_key_fallbacks:
        problem = weak_key_problem(key)
        if problem:
            raise ConfigError(f"environment variable SECRET_KEY_FALLBACKS: a key {problem}")
    seed_key = env.get(SEED_KEY_VARIABLE, "")
    if seed_key and (len(seed_key) < BOT_SEED_KEY_MIN_CHARS or not seed_key.isprintable() or seed_key.isspace()):
        # (an organiser's trial: "xyz" was taken; a short key lets a bot find the game's seed by trying keys)
        raise ConfigError(f"environment variable {SEED_KEY_VARIABLE} is too short ({len(seed_key)} characters; at "
                          f"least {BOT_SEED_KEY_MIN_CHARS}, printable): make one with python3 -c 'import secrets; "
                          "print(secrets.token_hex(32))' and give every web and worker process the same (D-R-8)")


def variables() -> list[Variable]:
    """Every environment variable `load` reads, with its default and meaning (docs/deploy.md)."""
    out = []
    for f in dataclasses.fields(Config):
        if "env" in f.metadata:
            default = (",".join(map(str, f.default)) if isinstance(f.default, tuple) else "" if f.default is None
                       else str(f.default).lower() if isinstance(f.default, bool)
                       else str(f.default).replace(str(REPO_ROOT), "<checkout>"))
            out.append(Variable(f.metadata["env"], default, f.metadata["help"]))
    for slug, game in SPECS.items():
        prefix = f"ARMADA_{slug.upper()}_"
        out.append(Variable(prefix + "MATCH_CONFIG", "{}", f"{game.label}: engine config of platform matches (JSON)"))
        if game.validation_turns is not None:
            out.append(Variable(prefix + "VALIDATION_TURNS", str(game.validation_turns),
                                f"{game.label}: turns of a validation game"))
        for part in ("init_ms", "turn_ms", "bank_ms"):
            out.append(Variable(prefix + part.upper(), str(getattr(game.default_times, part)),
                                f"{game.label}: time limit {part} (protocol.md)"))
        for part in ("upload_max_bytes", "unpacked_max_bytes"):
            out.append(Variable(prefix + part.upper(), "", f"{game.label}: ARMADA_{part.upper()} for this game "
                                "(empty: that one)"))
    defaults = SandboxLimits()
    for f in dataclasses.fields(SandboxLimits):
        out.append(Variable(f"ARMADA_SANDBOX_{f.name.upper()}", str(getattr(defaults, f.name)),
                            f"sandbox: {SANDBOX_HELP[f.name]} (ARMADA_SANDBOX_<GAME>_{f.name.upper()}: one game's)"))
    return out


def table_rows() -> list[str]:
    """docs/deploy.md's rows of these variables (`python -m armada_web.runtime.config` prints them)."""
    return [f"| `{v.name}` | {f'`{v.default}`' if v.default else ''} | settings | {v.help} |" for v in variables()]


#: What each of the sandbox's limits is (docs/sandbox.md, "Limits"), for `variables()`.
SANDBOX_HELP = {
    "memory_mb": "memory of a bot's container in MiB, no swap",
    "pids": "processes and threads in a bot's container",
    "tmp_mb": "size of a bot's /tmp in MiB (counts against its memory)",
    "cpus": "CPU share of a bot (1.0: one core)",
    "nofile": "open files per bot process",
    "max_line_bytes": "longest line a bot may write",
    "max_output_bytes": "all a bot may write to stdout in a match",
    "log_head_bytes": "bytes kept from the start of a bot's log",
    "log_tail_bytes": "bytes kept from the end of a bot's log",
    "max_log_bytes": "all a bot may write to stderr in a match",
    "start_timeout_s": "seconds a bot's container may take to start",
}


if __name__ == "__main__":
    print("\n".join(table_rows()))
