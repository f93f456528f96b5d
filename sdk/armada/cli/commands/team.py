"""`armada team create|join|leave|show`: the teams you enter with (issue 26)."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

from armada.cli.client import ApiClient, RemoteError, run_remote
from armada.cli.common import CliError
from armada.cli.config import default_team, is_team, own_team, require_token, save_default_team, settings

EPILOG = """\
examples:
  armada team create "Red Fleet"        create a team; prints its id and join key
  armada team join 12 KEY               join team 12 with the key a member gave you
  armada team join 'https://SITE/teams/12/join/?key=KEY'   the same, with the join link itself
  armada team show                      your teams (the default of `armada submit` marked *)
  armada team show "Red Fleet"          its members, bots and (for members) join key
  armada team leave "Red Fleet"         leave it (its last member: archive it first, on the site)

TEAM is a team's id (or id:N) or, for a team you are in, its name; for show, your username is
your personal team whatever its name (as for submit). `armada submit --team NAME` uploads
to a team's bot and remembers NAME as the default team. Log in first with `armada login`.
Exit status: 0 done, 2 refused (wrong key, full team, name taken...) or usage errors, 3 site errors.
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("team", help="create, join, leave or show a team on the site",
                              description="Teams on the site: every member manages the team's bots.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", nargs="?", default="show", choices=["create", "join", "leave", "show"],
                   help="what to do (default: show, your teams)")
    p.add_argument("team", nargs="?", metavar="TEAM", help="a team's name (create, show, leave) or id "
                   "(join: its id, or the join link a member gave you, in quotes)")
    p.add_argument("key", nargs="?", metavar="KEY", help="join: the team's join key")
    p.add_argument("--server", metavar="URL", help="the site (default: $ARMADA_SERVER, else the one you logged in to)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.action in ("create", "join", "leave") and not args.team:
        raise CliError(f"armada team {args.action} needs TEAM")
    link_site = None
    if args.action == "join" and not args.key:
        link_site = urlsplit(args.team.strip()).netloc
        args.team, args.key = from_join_link(args.team)
    current = settings(args.server)
    if link_site and link_site != urlsplit(current.server).netloc:
        print(f"armada: note: the link is {link_site}'s; joining team {args.team} on {current.server}, the site "
              "you logged in to (--server URL for another)", file=sys.stderr)
    client = ApiClient(current.server, require_token(current))
    return run_remote(lambda: ACTIONS[args.action](client, args))


#: A team's join page, as its join link names it (`/teams/12/join/?key=KEY`).
JOIN_PATH = re.compile(r"/teams/([0-9]+)/join/?")


def from_join_link(link: str) -> tuple[str, str]:
    """(TEAM, KEY) from the join link a member hands on (the team page's, `.../teams/12/join/?key=KEY`);
    CliError saying what `armada team join` takes for anything else."""
    parts = urlsplit(link.strip())
    found = JOIN_PATH.search(parts.path)
    key = parse_qs(parts.query).get("key", [""])[0]
    if found is None or not key:
        raise CliError("armada team join needs TEAM (its id) and KEY (its join key), or the team's join link "
                       "in quotes (`armada team join 'https://SITE/teams/12/join/?key=KEY'`)")
    return found.group(1), key


def find_team(client: ApiClient, ref: str, *, by_username: bool = True) -> dict[str, Any]:
    """A team of yours by its name first (a team may be named "123"; with `by_username`, your
    username names your personal team whatever its name, as for `armada submit --team`), else by
    id (digits, or `id:N` to mean the id whatever the names); RemoteError when none."""
    ref = ref.strip()
    number = ref[3:] if ref.startswith("id:") else ref
    if not ref.startswith("id:"):
        teams = client.request("GET", "/api/teams/")
        found = own_team(teams, ref, _username(teams) if by_username else None)
        if found is not None:
            return found
    if number.isdecimal():
        return dict(client.request("GET", f"/api/teams/{int(number)}/"))
    raise RemoteError(f"you are in no team named {ref!r} (`armada team show` lists yours; give an id otherwise)")


def _create(client: ApiClient, args: argparse.Namespace) -> int:
    team = client.request("POST", "/api/teams/", json_body={"name": args.team})
    print(f"created team {team['name']} (id {team['id']})")
    print(f"join key: {team.get('join_key', '')}  (others join with: armada team join {team['id']} KEY)")
    return 0


def _join(client: ApiClient, args: argparse.Namespace) -> int:
    if not args.team.strip().isdecimal():
        raise CliError(f"give the team's id to join it, not {args.team!r}")
    team = client.request("POST", f"/api/teams/{int(args.team)}/join/", json_body={"key": args.key})
    print(f"joined team {team['name']} (id {team['id']}): {_names(team)}")
    return 0


def _leave(client: ApiClient, args: argparse.Namespace) -> int:
    team = find_team(client, args.team, by_username=False)  # (your personal team is never left)
    client.request("POST", f"/api/teams/{team['id']}/leave/")
    print(f"left team {team['name']}")
    remembered = default_team()
    if remembered and is_team(team, remembered):  # (a team left is no default of `armada submit`)
        save_default_team("")
        print(f"armada submit uploads to your own bots again (team {team['name']} was its default)")
    return 0


def _username(teams: Any) -> str | None:
    """Your username, as your personal team's one member (GET /api/teams/ lists it first)."""
    for team in teams if isinstance(teams, list) else []:
        if isinstance(team, dict) and team.get("personal"):
            members = [m.get("username") for m in team.get("members", []) if isinstance(m, dict)]
            return str(members[0]) if len(members) == 1 else None
    return None


def _names(team: dict[str, Any]) -> str:
    """The members' names, or "none" (an archived team whose last member left)."""
    return ", ".join(str(m.get("username")) for m in team.get("members", []) if isinstance(m, dict)) or "none"


def _show(client: ApiClient, args: argparse.Namespace) -> int:
    if not args.team:
        chosen = default_team()
        teams = client.request("GET", "/api/teams/")
        marked = own_team(teams, chosen, _username(teams)) if chosen else None
        for team in teams:
            mark = "*" if (team is marked if chosen else team.get("personal")) else " "
            kind = " (personal)" if team.get("personal") else " (archived)" if team.get("archived") else ""
            print(f"{mark} {team['id']:>6}  {team['name']}{kind}: {_names(team)}")
        return 0
    team = find_team(client, args.team)
    team = dict(client.request("GET", f"/api/teams/{team['id']}/"))
    print(f"team {team['name']} (id {team['id']})" + (" archived" if team.get("archived") else ""))
    print(f"members: {_names(team)}")
    for bot in team.get("bots", []):
        print(f"  bot {bot['id']}: {bot['name']} ({bot['game']})")
    if team.get("join_key"):
        print(f"join key: {team['join_key']}")
    return 0


ACTIONS = {"create": _create, "join": _join, "leave": _leave, "show": _show}
