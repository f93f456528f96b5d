"""`armada league`: a Mothership Down league (MD-10, MD-11) of local races, as the site runs it."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from armada.cli import botinfo, output
from armada.cli.common import (
    MAX_SEED,
    CliError,
    add_sandbox_arg,
    check_config,
    connection,
    docker_preflight,
    load_config,
    millis_arg,
    random_seed,
    resolve_all,
    seed_arg,
    time_limits_for,
)

EPILOG = """\
Each race (a bot, given as for `armada play`) is asked for its orders once (MD-11), in a
match against a stand-in that is never shown; a race whose orders are invalid, or that
crashes or times out, does not enter the league (MD-12) and is listed with the reason. Then
every race fights every other race once, and the table is sorted by points (3 for a win by
destruction, 2 on damage, 1 for a draw), wins by destruction, damage difference, head to
head, and the order given on the command line (the earlier "submission").

examples:
  armada league builtin:greedy builtin:balanced builtin:random mybot/
  armada league race1/ race2/ race3/ --seed 5 --json
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "league", help="a Mothership Down league (MD-10) between local races",
        description="Ask each race for its orders once and print the Mothership Down league table.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("races", metavar="RACE", nargs="+", help="two or more Mothership bots")
    p.add_argument("--seed", "-s", type=seed_arg,
                   help="race i (from 0) is asked with seed SEED + i (its ARMADA_BOT_SEED follows it; "
                   "default: a random SEED, printed)")
    add_sandbox_arg(p)
    p.add_argument("--turn-ms", type=millis_arg, metavar="N",
                   help="time for the orders request in milliseconds (default: 2000)")
    p.add_argument("--config", "-c", metavar="JSON-or-FILE", help="game configuration (JSON object or file)")
    p.add_argument("--json", action="store_true", help="print only the table as JSON on stdout")
    p.set_defaults(run=run)


@dataclass
class Entry:
    """A race on the command line: its label, the name it announced, its orders or why it has none."""

    label: str
    name: str
    orders: dict[str, Any] | None
    status: str
    detail: str


def ask_orders(source: Any, label: str, sandbox: str, seed: int, config: dict[str, Any] | None,
               turn_ms: int | None) -> Entry:
    """Ask one race for its orders once (MD-11), through the referee like any match."""
    from armada.bot.mothership import Orders
    from armada.referee.inprocess import InProcessBot
    from armada.referee.match import play_match

    cheapest = Orders.cheapest(config).to_dict()  # the stand-in's orders; its battle is never shown
    other = InProcessBot(lambda request: {} if request.get("type") == "init" else cheapest, label="stand-in")
    outcome = play_match("mothership", {1: connection(source, sandbox, label), 2: other}, seed=seed,
                         config=config, limits=time_limits_for("mothership", turn_ms))
    player = outcome.players[0]
    steps = outcome.replay["steps"]
    orders = steps[0]["answers"].get("1") if steps and player.status == "ok" else None
    return Entry(label, player.name, orders, player.status, player.detail)


def run(args: argparse.Namespace) -> int:
    if len(args.races) < 2:
        raise CliError("a league needs at least two races")
    from armada.games.mothership import Race, league, parse_config

    seed: int = args.seed if args.seed is not None else random_seed()
    last_seed = seed + len(args.races) - 1  # race i is asked with seed S + i
    if last_seed > MAX_SEED:
        raise CliError(f"the seeds of this league go up to {last_seed}, past the largest seed {MAX_SEED} "
                       f"(`armada play --seed` could not replay them): give a smaller --seed")
    config = load_config(args.config)
    check_config("mothership", config)
    if args.sandbox == "docker":
        docker_preflight()
    with ExitStack() as stack:
        sources, labels = resolve_all(stack, args.races, "mothership")
        print(f"armada: league, seed {seed}: asking {len(sources)} races for their orders", file=sys.stderr)
        entries = [ask_orders(src, label, args.sandbox, seed + i, config, args.turn_ms)
                   for i, (src, label) in enumerate(zip(sources, labels, strict=True))]
    for spec, entry in zip(args.races, entries, strict=True):
        other = other_game(spec)
        if entry.orders is None and other:
            entry.detail += f" ({other}: a league is Mothership Down's)"
    entered = [e for e in entries if e.orders is not None]
    races = [Race(shown(e), e.orders, submitted=i, key=e) for i, e in enumerate(entered)]  # type: ignore[arg-type]
    table = league(races, parse_config(config)) if races else []
    rows = [{"position": r.position, "race": r.race.name, "played": r.played, "points": r.points,
             "wins_destruction": r.wins_destruction, "wins_damage": r.wins_damage, "draws": r.draws,
             "losses": r.losses, "damage_dealt": r.damage_dealt, "damage_taken": r.damage_taken}
            for r in table]
    left_out = [{"race": shown(e), "status": e.status, "detail": e.detail} for e in entries if e.orders is None]
    if args.json:
        print(json.dumps({"game": "mothership", "seed": seed, "table": rows, "left_out": left_out}))
        return 0
    print(render(rows, left_out))
    return 0


def other_game(spec: str) -> str | None:
    """`mybot/armada.json names galaxy` when race `spec`'s armada.json names another game than
    Mothership Down (what its bot then says only in its log), else None."""
    try:
        recorded = botinfo.recorded_game_of(spec)
    except CliError:  # a damaged armada.json: the race's own fault says enough
        return None
    if recorded is None or recorded[0] == "mothership":
        return None
    return f"{recorded[1]} names {recorded[0]}"


def shown(entry: Entry) -> str:
    """`Greedy Guardians (builtin:greedy)`: the announced name and the spec it came from."""
    return entry.label if entry.name == entry.label else f"{entry.name} ({entry.label})"


def render(rows: list[dict[str, Any]], left_out: list[dict[str, Any]]) -> str:
    """The league table (MD-10 order), then the races left out (MD-12)."""
    body = [[r["position"], r["race"], r["points"], r["wins_destruction"], r["wins_damage"], r["draws"],
             r["losses"], r["damage_dealt"] - r["damage_taken"]] for r in rows]
    parts = [output.table(["#", "race", "points", "W destr", "W damage", "D", "L", "damage +/-"], body,
                          right=[0, 2, 3, 4, 5, 6, 7])]
    if left_out:
        parts += ["", "left out (MD-12: no valid orders):"]
        parts += [f"  {r['race']}: {r['status']}: {r['detail']}" for r in left_out]
    return "\n".join(parts)
