"""`armada login`: create an API token on the site and store it for the other commands."""

from __future__ import annotations

import argparse
import getpass
import os
import socket
import sys
from typing import Any

from armada.cli.client import ApiClient, RemoteError, run_remote
from armada.cli.common import CliError
from armada.cli.config import (
    DEFAULT_SERVER,
    TOKEN_ENV,
    Credentials,
    load_credentials,
    looks_like_token,
    normalize_server,
    resolve_server,
    save_credentials,
)

EPILOG = f"""\
examples:
  armada login                                  asks for username and password ({DEFAULT_SERVER})
  armada login https://armada.example.org       ... on that site (the same as --server URL)
  echo "$PASSWORD" | armada login --username alice     password from stdin (scripts, CI)
  armada login https://armada.example.org --token-stdin  a token made on your profile page (pasted,
                                                         or piped on stdin's first line)

The token is stored in $XDG_CONFIG_HOME/armada/config.json (default ~/.config/armada/config.json),
readable by you only. ARMADA_TOKEN and ARMADA_SERVER override what it holds.
Exit status: 0 logged in, 2 wrong credentials, throttled, unreachable server or usage error,
3 when the site itself fails.
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "login", help="log in to the site and store an API token",
        description="Create an API token on the site (POST /api/tokens/) and store it for `armada submit`.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("site", metavar="SERVER", nargs="?",
                   help=f"the site, e.g. {DEFAULT_SERVER} (default: $ARMADA_SERVER, else the stored one, "
                   f"else {DEFAULT_SERVER})")
    p.add_argument("--server", metavar="URL", help="the site, as the SERVER argument")
    p.add_argument("--username", "-u", metavar="U",
                   help="your username (asked when missing); with it, a password piped on stdin is read from there")
    p.add_argument("--token-stdin", action="store_true",
                   help="store a token made on the site's profile page instead: asked on a terminal "
                   "(not echoed), else read from the first line of stdin")
    p.set_defaults(run=run)


def token_name() -> str:
    """The name the token gets on the site, so the profile page says where it is used."""
    return f"armada-cli@{socket.gethostname() or 'unknown-host'}"


def read_login(username: str | None) -> tuple[str, str]:
    """Username and password: asked on a terminal, else --username and the first line of stdin."""
    interactive = sys.stdin is not None and sys.stdin.isatty()
    if not interactive:
        if not username:
            raise CliError("give --username when the password comes from stdin (not a terminal)")
        line = sys.stdin.readline() if sys.stdin is not None else ""
        password = line.rstrip("\r\n")
        if not password:
            raise CliError("no password on stdin (expected it on the first line)")
        return username, password
    if not username:
        try:
            username = input("username: ").strip()
        except EOFError:
            username = ""
        if not username:
            raise CliError("no username given")
    try:
        password = getpass.getpass("password: ")
    except EOFError:
        password = ""
    if not password:
        raise CliError("no password given")
    return username, password


def run(args: argparse.Namespace) -> int:
    if args.site and args.server and normalize_server(args.site) != normalize_server(args.server):
        raise CliError(f"two servers given ({args.site} and --server {args.server}): give one")
    if args.token_stdin and args.username:
        raise CliError("give --username (to log in with your password) or --token-stdin (a token "
                       "made on the site), not both")
    server = resolve_server(args.site or args.server)
    if args.token_stdin:
        return run_remote(lambda: store_token(server, read_token()))
    return run_remote(lambda: login(server, args.username))


def read_token() -> str:
    """A token made on the site: asked on a terminal (not echoed), else stdin's first line."""
    if sys.stdin is not None and sys.stdin.isatty():
        try:
            token = getpass.getpass("token: ")
        except EOFError:
            token = ""
    else:
        token = sys.stdin.readline() if sys.stdin is not None else ""
    token = token.strip()
    if not token:
        raise CliError("no token given (copy it from your profile page on the site when you create it)")
    if not looks_like_token(token):
        raise CliError("that is not a token: a token is one word of letters and digits, as the site shows it")
    return token


def store_token(server: str, token: str) -> int:
    """Check the site and that it knows the token (GET /api/me/), then store it."""
    ApiClient(server).check_version()
    try:
        me = ApiClient(server, token).request("GET", "/api/me/")
    except RemoteError as exc:
        if exc.status == 401:
            raise RemoteError(f"{server} does not know that token (revoked, or from another site?): copy a new "
                              "one from your profile page; nothing was stored", status=401) from None
        raise
    name = me.get("username") if isinstance(me, dict) else None
    if not isinstance(name, str) or not name:
        raise RemoteError(f"GET /api/me/ on {server} answered without a username", exit_code=3)
    return _save(server, token, name, "token")


def _save(server: str, token: str, username: str, what: str, token_id: int | None = None) -> int:
    """Store the credentials and say so (`what`: how the token is named), warning when
    ARMADA_TOKEN overrides them; a token an earlier `armada login` of the same user on the same
    site made and stored is revoked (a trial: every login left one more live token of one name)."""
    try:
        before = load_credentials()
    except CliError:
        before = None
    path = save_credentials(Credentials(server, token, username, token_id))
    print(f"logged in as {username} on {server}")
    print(f"{what} stored in {path} (readable by you only)")
    if before is not None and before.server == server and before.username == username \
            and before.token_id is not None and before.token_id != token_id:
        _revoke(server, token, before.token_id)
    if os.environ.get(TOKEN_ENV, "").strip():
        print(f"armada: warning: {TOKEN_ENV} is set and overrides the stored token", file=sys.stderr)
    return 0


def _revoke(server: str, token: str, old_id: int) -> None:
    """Revoke the token this machine stored before (its id), with the new one; one already
    revoked on the site (404) needs nothing, any other failure is a warning."""
    try:
        ApiClient(server, token).request("DELETE", f"/api/tokens/{old_id}/")
    except RemoteError as exc:
        if exc.status != 404:
            print(f"armada: warning: the token stored before (id {old_id}) was not revoked: {exc}; revoke it "
                  f"on your profile page ({server.rstrip('/')}/accounts/profile/)", file=sys.stderr)
        return
    print(f"the token stored before (id {old_id}) is revoked")


def login(server: str, username_arg: str | None) -> int:
    """Check the site, read the credentials, create a token, store it; prints who is logged in where."""
    client = ApiClient(server)
    client.check_version()
    username, password = read_login(username_arg)
    try:
        created = client.request("POST", "/api/tokens/", auth=False,
                                 json_body={"username": username, "password": password, "name": token_name()})
    except RemoteError as exc:
        if exc.status == 400:
            raise RemoteError(f"login refused by {server}: {exc} (no account yet? sign up at "
                              f"{server.rstrip('/')}/accounts/signup/)", status=400) from None
        if exc.status == 429:  # (failed guesses under the name, maybe not yours: the site's browser still signs in)
            raise RemoteError(f"{exc}; meanwhile, in a browser you signed in with before, make a token on your "
                              f"profile page ({server.rstrip('/')}/accounts/profile/) and give it to "
                              "`armada login --token-stdin`", status=429, retry_after=exc.retry_after) from None
        raise
    token = created.get("token") if isinstance(created, dict) else None
    if not isinstance(token, str) or not token:
        raise RemoteError(f"POST /api/tokens/ on {server} answered without a token", exit_code=3)
    made_id = created.get("id")
    token_id = made_id if isinstance(made_id, int) and not isinstance(made_id, bool) else None
    try:
        me = ApiClient(server, token).request("GET", "/api/me/")
        name = me.get("username") if isinstance(me, dict) else None
        return _save(server, token, name if isinstance(name, str) and name else username,
                     f"token '{created.get('name') or token_name()}'", token_id)
    except (CliError, RemoteError):
        _forget(server, token, token_id)  # a trial: each failed save left one more live token on the site
        raise


def _forget(server: str, token: str, token_id: int | None) -> None:
    """Revoke the token this login made when it could not be stored (best effort, said on stderr)."""
    if token_id is None:
        return
    try:
        ApiClient(server, token).request("DELETE", f"/api/tokens/{token_id}/")
    except RemoteError:
        print(f"armada: warning: the token this login made (id {token_id}) is still live: revoke it on your "
              f"profile page ({server.rstrip('/')}/accounts/profile/)", file=sys.stderr)
        return
    print(f"armada: the token this login made (id {token_id}) was not stored, so it is revoked again",
          file=sys.stderr)
