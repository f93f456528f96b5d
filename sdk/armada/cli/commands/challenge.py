"""`armada challenge`: start an unrated match of your bot against another bot on the site."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from armada.cli import botinfo, output, polling
from armada.cli.client import ApiClient, RemoteError, run_remote
from armada.cli.common import CliError, get_engine
from armada.cli.config import require_token, settings

EPILOG = """\
examples:
  armada challenge mybot rival                 queue mybot against rival, print the match's page
  armada challenge mybot rival --wait          ... and wait for the result
  armada challenge 12 31 --wait --timeout 300  bots by id
  armada challenge mybot rival --server https://armada.example.org

MYBOT is one of your Galaxy bots, OPPONENT any other active Galaxy bot, each by name or id
(a number is an id). The site picks the seed and alternates the sides between challenges of
a pair; a challenge is unrated. Log in first with `armada login` (or set ARMADA_TOKEN).

Exit status: 0 queued (or, with --wait, played: whoever won), 2 usage errors, refusals (no
such bot, not yours, the hourly limits) and network errors, 3 a match the site could not
play (void, failed), a platform error or a wait that timed out, 130 interrupted.
"""

#: Statuses after which a match changes no more.
FINAL = ("finished", "void", "failed")
#: Log lines shown of your bot when it ended the match by a fault.
LOG_LINES = 8


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "challenge", help="start a match of your bot against another on the site",
        description="Queue an unrated match of your bot MYBOT against OPPONENT (POST /api/challenges/), "
        "print its page and, with --wait, its result.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bot", metavar="MYBOT", help="your bot: its name or id")
    p.add_argument("opponent", metavar="OPPONENT", help="the other bot: its name or id")
    p.add_argument("--wait", "-w", action="store_true", help="wait for the match to be played and print its result")
    p.add_argument("--timeout", type=polling.timeout_arg, default=polling.DEFAULT_TIMEOUT_S, metavar="S",
                   help=f"with --wait: wait at most S seconds (default: {polling.DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--server", metavar="URL", help="the site (default: $ARMADA_SERVER, else the one you logged in to)")
    p.set_defaults(run=run)


def bot_ref(text: str, what: str) -> int | str:
    """A bot as the API takes it: an id (a number) or a name; CliError for neither."""
    text = text.strip()
    if text.isdecimal():
        return int(text)
    if not botinfo.SITE_NAME_RE.fullmatch(text):
        raise CliError(f"bad {what} {text!r}: give a bot's id or its name ({botinfo.SITE_NAME_RULE})")
    return text


def run(args: argparse.Namespace) -> int:
    body = {"bot": bot_ref(args.bot, "MYBOT"), "opponent": bot_ref(args.opponent, "OPPONENT")}
    current = settings(args.server)
    client = ApiClient(current.server, require_token(current))
    return run_remote(lambda: challenge(client, body, args.wait, args.timeout))


def challenge(client: ApiClient, body: dict[str, int | str], wait: bool, timeout_s: float) -> int:
    """Queue the match, print where to follow it, wait for it when asked; returns the exit status."""
    client.check_version()
    try:
        match = client.request("POST", "/api/challenges/", json_body=body)
    except RemoteError as exc:
        if exc.exit_code == 2 and exc.status is not None:
            raise RemoteError(f"challenge refused: {exc}", status=exc.status) from None
        raise
    match = checked_match(match, "POST /api/challenges/")
    url = page_url(client, match)
    print(f"match {match['id']} queued: {players_text(match)}")
    print(f"url: {url}")
    if not wait:
        return 0
    path = f"/api/matches/{match['id']}/"
    label = f"match {match['id']}"
    waiting = polling.Waiting(label, f"{label} ({url})", "queued as", "is queued and will be played")
    final = polling.poll(client, path, match, FINAL, timeout_s, sys.stderr, waiting,
                         lambda fresh: checked_match(fresh, f"GET {path}"))
    return report(final, url, timeout_s)


def checked_match(data: Any, what: str) -> dict[str, Any]:
    """The answer as a match (an id, a status, a list of players); RemoteError (exit 3) otherwise."""
    if not isinstance(data, dict) or not isinstance(data.get("id"), int) or "status" not in data:
        raise RemoteError(f"{what} answered {str(data)[:80]!r}, not a match", exit_code=3)
    if not isinstance(data.get("players"), list):
        data["players"] = []
    return data


def page_url(client: ApiClient, match: dict[str, Any]) -> str:
    """The match's page: the answer's absolute `url`, else its `page` path on this server, else /matches/ID/."""
    url = match.get("url")
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        return url
    page = match.get("page")
    return client.server + (page if isinstance(page, str) and page.startswith("/") else f"/matches/{match['id']}/")


def bot_names(match: dict[str, Any]) -> dict[int, str]:
    """Seat -> `name v3` of the site's bot (the announced name when the bot is gone)."""
    names = {}
    for player in match["players"]:
        if not isinstance(player, dict) or not isinstance(player.get("seat"), int):
            continue
        bot = player.get("bot")
        if isinstance(bot, dict) and bot.get("name"):
            version = bot.get("version")
            names[player["seat"]] = f"{bot['name']} v{version}" if version is not None else str(bot["name"])
        else:
            names[player["seat"]] = str(player.get("name") or "?")
    return names


def players_text(match: dict[str, Any]) -> str:
    """`mybot v3 (seat 1) vs rival v1 (seat 2)`."""
    names = bot_names(match)
    return " vs ".join(f"{names[seat]} (seat {seat})" for seat in sorted(names)) or "(players not given)"


def result_text(match: dict[str, Any]) -> str:
    """A finished match: the winner and the seats named by their bots, each seat's status, your faulty bot's log."""
    raw = match.get("result")
    result: dict[str, Any] = raw if isinstance(raw, dict) else {}
    names = bot_names(match)
    players = [p for p in match["players"] if isinstance(p, dict) and isinstance(p.get("seat"), int)]
    lines = [f"match {match['id']}: finished",
             f"winner:  {output.winner_text(result.get('winner'), str(result.get('outcome') or '?'), names)}",
             f"{turns_label(match) + ':':<8} {result.get('turns', match.get('turns'))}", ""]
    rows = [[p["seat"], names.get(p["seat"], "?"), *output.status_cells({"status": "?", **p})] for p in players]
    lines.append(output.table(["seat", "bot", "status", "detail"], rows, right=[0]))
    for p in players:
        if p.get("status") not in ("ok", None) and p.get("log"):  # the log is there for your own bots only
            lines += ["", output.log_tail(p["seat"], names.get(p["seat"], "?"), p["log"], LOG_LINES, hint=False)]
    if match.get("replay"):
        lines.append(f"replay:  {match['replay']}")
    return "\n".join(lines)


#: How the site's reason begins for a match void by an owner's doing (a seat's bot deleted during
#: it: `matches.execution.deleted`), not the platform's.
OWNERS_VOID = "void: "


def report(match: dict[str, Any], url: str, waited: float) -> int:
    """Print the match's result naming the bots (stdout) or why there is none (stderr); the exit status."""
    status = str(match["status"])
    label = f"match {match['id']}"
    if status == "finished":
        print(result_text(match))
        print(f"url: {url}")
        return 0
    if status in ("void", "failed"):
        reason = " ".join(str(match.get("reason") or "no reason given").split())
        if status == "void" and reason.startswith(OWNERS_VOID):  # not the platform's doing
            reason = reason.removeprefix(OWNERS_VOID)
            print(f"{label}: void: {reason}")
            print(f"url: {url}")
            print(f"armada: error: {label} does not count: {reason}", file=sys.stderr)
            return 3
        print(f"{label}: {status}: {reason}")
        print(f"url: {url}")
        print(f"armada: error: the site could not play {label} ({status}): {reason}; "
              "nobody's result, a platform failure", file=sys.stderr)
        return 3
    print(f"{label}: still {status} after {waited:g} s")
    why = match.get("waiting")
    if isinstance(why, str) and why.strip():
        print(f"why: {' '.join(why.split())[:300]}")
    print(f"url: {url}")
    print(f"armada: error: gave up waiting after {waited:g} s (status: {status}); "
          f"the result will appear at {url}", file=sys.stderr)
    return 3


def turns_label(match: dict[str, Any]) -> str:
    """`turns` or `rounds`, as the match's game counts them."""
    try:
        return get_engine(str(match.get("game"))).turns_label
    except ValueError:
        return "turns"
