"""The stored credentials of `armada login`: one JSON file per user, readable by its owner only.

The file is `$XDG_CONFIG_HOME/armada/config.json` (default `~/.config/armada/config.json`),
holding `{"server", "token", "username"}` (and `"token_id"`, the token's id on the site, which the
next login there revokes; `"team"`, the default team of `armada submit`),
created with mode 0600 in a folder created with
mode 0700. `ARMADA_SERVER` and `ARMADA_TOKEN` override what it holds.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from armada import extras
from armada.cli.common import CliError

DEFAULT_SERVER = "http://127.0.0.1:8000"
SERVER_ENV = "ARMADA_SERVER"
TOKEN_ENV = "ARMADA_TOKEN"  # noqa: S105  (the variable's name, not a secret)
NOT_LOGGED_IN = "not logged in: run `armada login` (or set ARMADA_TOKEN)"


@dataclass(frozen=True)
class Credentials:
    """What `armada login` stores: the site, the API token and the user it belongs to."""

    server: str
    token: str
    username: str
    #: The token's id on the site (what `armada login` made), so a later login there revokes it.
    token_id: int | None = None


@dataclass(frozen=True)
class Settings:
    """The server a command talks to and the token it sends (None: not logged in there)."""

    server: str
    token: str | None
    username: str | None


def config_path() -> Path:
    """Where the credentials live: `$XDG_CONFIG_HOME/armada/config.json`, else `~/.config/armada/`."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".config"
    return root / "armada" / "config.json"


def normalize_server(url: str) -> str:
    """`url` without its trailing slash; raises CliError unless it is an http(s) address."""
    url = url.strip().rstrip("/")
    example = f"give one like {DEFAULT_SERVER} or https://armada.example.org"
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a port that is not a number from 0 to 65535
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket: "http://[::1"
        raise CliError(f"bad server address {url!r} ({exc}): {example}") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CliError(f"bad server address {url!r}: {example}")
    if not parts.hostname or port == 0 or any(c.isspace() or not c.isprintable() for c in url):
        raise CliError(f"bad server address {url!r}: no host, port 0, or a space or control character; {example}")
    if parts.query or parts.fragment:
        raise CliError(f"bad server address {url!r}: no query or fragment, only scheme, host and port")
    return url


def load_credentials(path: Path | None = None) -> Credentials | None:
    """The stored credentials, None when there are none; raises CliError for a damaged file."""
    path = path or config_path()
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: not valid JSON ({exc}); run `armada login` again") from exc
    fields = ("server", "token", "username")
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) and data[k] for k in fields):
        raise CliError(f"{path}: expected {{\"server\", \"token\", \"username\"}}; run `armada login` again")
    token_id = data.get("token_id")
    return Credentials(data["server"], data["token"], data["username"],
                       token_id if isinstance(token_id, int) and not isinstance(token_id, bool) else None)


def save_credentials(credentials: Credentials, path: Path | None = None) -> Path:
    """Write the credentials atomically, mode 0600 from the first byte (folder 0700); returns the path.
    The default team (`armada submit --team`) stays when the server stays."""
    path = path or config_path()
    data: dict[str, str | int] = {"server": credentials.server, "token": credentials.token,
                                  "username": credentials.username}
    if credentials.token_id is not None:
        data["token_id"] = credentials.token_id
    team = _stored(path).get("team")
    if isinstance(team, str) and team and _stored(path).get("server") == credentials.server:
        data["team"] = team
    return _write(path, data)


def _stored(path: Path) -> dict[str, object]:
    """The config file's JSON object, {} when it is missing or damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: dict[str, str | int]) -> Path:
    folder = path.parent
    try:
        if not folder.is_dir():
            folder.mkdir(mode=0o700, parents=True)
            os.chmod(folder, 0o700)  # the umask may have taken bits away, never added: be exact
        # mkstemp opens with O_EXCL and mode 0600: the token is never readable by others.
        fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".json", dir=folder)
    except OSError as exc:
        raise CliError(f"cannot create {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


def default_team(path: Path | None = None) -> str | None:
    """The team `armada submit` uses without --team (the last --team given, kept as `id:N`; a
    name when an older SDK wrote it), None for the personal one."""
    team = _stored(path or config_path()).get("team")
    return team if isinstance(team, str) and team else None


def is_team(team: dict[str, Any], ref: str) -> bool:
    """Whether `ref` (a name, any case, or `id:N`) names `team`."""
    if ref.startswith("id:"):
        return str(team.get("id")) == ref[3:]
    return str(team.get("name", "")).lower() == ref.lower()


def own_team(teams: Any, ref: str, username: Any) -> dict[str, Any] | None:
    """Your team (of `teams`, your teams as the site lists them) that `ref` names, or None: your
    username, any case, is your personal team whatever its name (a personal team is named `alice-2`
    when a team had the name first, D-S-7, and a shared team named `Alice` must not take it); else a
    team's name, any case, or `id:N`; else digits that are one of your teams' id."""
    mine = [t for t in teams if isinstance(t, dict)] if isinstance(teams, list) else []
    if isinstance(username, str) and ref.lower() == username.lower():
        personal = next((t for t in mine if t.get("personal")), None)
        if personal is not None:
            return personal
    for team in mine:
        if is_team(team, ref):
            return team
    if ref.strip().isdecimal():  # digits that name none of your teams: an id (`armada team show` prints them)
        return next((t for t in mine if str(t.get("id")) == ref.strip()), None)
    return None


def save_default_team(team: str, path: Path | None = None) -> None:
    """Remember `team` as the default of `armada submit` (in the config file, beside the token)."""
    path = path or config_path()
    data: dict[str, str | int] = {k: v for k, v in _stored(path).items()
                                  if isinstance(v, str | int) and not isinstance(v, bool)}
    data["team"] = team
    _write(path, data)


def stored_server() -> str | None:
    """The server of the stored credentials, if any (a damaged file counts as none)."""
    try:
        credentials = load_credentials()
    except CliError:
        return None
    return credentials.server if credentials else None


def known_server() -> str | None:
    """The user's site, when the SDK knows it: the one `armada login` stored, else the one its wheel
    was downloaded from (None: neither; `DEFAULT_SERVER` is a developer's, not a guess). Never
    raises: `armada new` asks, offline, and works without a home directory (`Path.home()` raises
    RuntimeError for a uid without one, e.g. in a container) or a readable config file."""
    try:
        stored = stored_server()
    except (RuntimeError, OSError):
        stored = None
    found = stored or extras.site()
    try:
        return normalize_server(found) if found else None
    except CliError:
        return None


def resolve_server(server_arg: str | None) -> str:
    """The server to talk to: --server, else $ARMADA_SERVER, else the stored one, else the default."""
    chosen = server_arg or os.environ.get(SERVER_ENV) or stored_server() or DEFAULT_SERVER
    return normalize_server(chosen)


def looks_like_token(text: str) -> bool:
    """Whether `text` could be an API token: one word of visible ASCII (the site's are hex digits)."""
    return text.isascii() and text.isprintable() and " " not in text


def settings(server_arg: str | None) -> Settings:
    """Server and token for a command. A stored token is only ever sent to the server it came from;
    CliError for an `ARMADA_TOKEN` that cannot be a token (before, an accented letter in it read as
    "cannot reach" the server)."""
    server = resolve_server(server_arg)
    env_token = os.environ.get(TOKEN_ENV, "").strip()
    if env_token and not looks_like_token(env_token):
        raise CliError(f"{TOKEN_ENV} is not a token: a token is one word of letters and digits, as the site shows "
                       f"it; set {TOKEN_ENV} to one, or unset it to use the one `armada login` stores")
    if env_token:
        return Settings(server, env_token, None)
    credentials = load_credentials()
    if credentials and normalize_server(credentials.server) == server:
        return Settings(server, credentials.token, credentials.username)
    return Settings(server, None, None)


def require_token(current: Settings) -> str:
    """The token, or CliError saying how to log in (to that server when it is not the stored one)."""
    if current.token:
        return current.token
    stored = stored_server()
    if stored and normalize_server(stored) != current.server:
        raise CliError(f"not logged in to {current.server} (only to {stored}): "
                       f"run `armada login {current.server}` (or set ARMADA_TOKEN)")
    raise CliError(NOT_LOGGED_IN)
