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
    normalize_server,
    resolve_server,
    save_credentials,
)

EPILOG = f"""\
examples:
  armada login                                  asks for username and password ({DEFAULT_SERVER})
  armada login https://armada.example.org       ... on that site (the same as --server URL)
  echo "$PASSWORD" | armada login --username alice     password from stdin (scripts, CI)

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
    server = resolve_server(args.site or args.server)
    return run_remote(lambda: login(server, args.username))


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
        raise
    token = created.get("token") if isinstance(created, dict) else None
    if not isinstance(token, str) or not token:
        raise RemoteError(f"POST /api/tokens/ on {server} answered without a token", exit_code=3)
    me = ApiClient(server, token).request("GET", "/api/me/")
    name = me.get("username") if isinstance(me, dict) else None
    path = save_credentials(Credentials(server, token, name if isinstance(name, str) and name else username))
    print(f"logged in as {name or username} on {server}")
    print(f"token '{created.get('name') or token_name()}' stored in {path} (readable by you only)")
    if os.environ.get(TOKEN_ENV, "").strip():
        print(f"armada: warning: {TOKEN_ENV} is set and overrides the stored token", file=sys.stderr)
    return 0
