"""`armada play`: one match between two bots on this machine."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from typing import Any

from armada.cli import output
from armada.cli.common import (
    CliError,
    add_game_arg,
    add_sandbox_arg,
    check_config,
    connection,
    docker_preflight,
    limits_for,
    load_config,
    positive_int_arg,
    random_seed,
    resolve,
    seed_arg,
    unique_labels,
)
from armada.cli.states import load_start_state

EPILOG = """\
bots:
  path/to/main.py      a Python file (its folder is the bot's code)
  path/to/folder       a folder holding main.py
  path/to/bot.zip      a zip holding main.py at its top or in its single top folder
  builtin:NAME         a starter bot (galaxy: random, greedy, prober;
                       mothership: random, greedy, balanced)

examples:
  armada play mybot/ builtin:greedy
  armada play mybot/main.py builtin:random --seed 42 --replay match.json.gz
  armada play bot.zip builtin:balanced --game mothership --json
  armada play mybot/ builtin:greedy --config '{"max_turns": 50}' --turn-ms 500
  armada play mybot/ builtin:greedy --from-state match.json.gz#turn=40
  armada play mybot/ builtin:greedy --sandbox docker

Exit status: 0 when the match was played (whoever won, even if a bot crashed),
2 for usage errors, unreadable bots, bad configurations and bad state files.
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "play", help="play one match between two bots",
        description="Play one match between two bots and print how it went. "
        "The first bot takes seat 1, the second seat 2.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bot1", metavar="BOT", help="the bot in seat 1")
    p.add_argument("bot2", metavar="BOT", help="the bot in seat 2")
    add_game_arg(p)
    p.add_argument("--seed", "-s", type=seed_arg, help="match seed (default: a random one, printed)")
    p.add_argument("--replay", "-r", metavar="FILE", help="write the replay to FILE (gzipped JSON, e.g. match.json.gz)")
    p.add_argument("--json", action="store_true", help="print only a JSON summary on stdout")
    add_sandbox_arg(p)
    p.add_argument("--from-state", metavar="FILE",
                   help="start from a saved state: a dump written by `armada replay --dump-state`, "
                   "or REPLAY.json.gz#turn=N for the position after turn N of a replay")
    p.add_argument("--turn-ms", type=positive_int_arg, metavar="N",
                   help="time per request in milliseconds (default: 1000, mothership 2000)")
    p.add_argument("--config", "-c", metavar="JSON-or-FILE",
                   help="game configuration: a JSON object, or a file holding one")
    p.add_argument("--verbose", "-v", action="store_true", help="also print the end of each bot's log (stderr)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game: str = args.game
    seed: int = args.seed if args.seed is not None else random_seed()
    if args.from_state and args.config:
        raise CliError("--config cannot be combined with --from-state: the state carries its configuration")
    config = load_config(args.config)
    start_state = load_start_state(args.from_state, game) if args.from_state else None
    if start_state is not None and isinstance(start_state.get("config"), dict):
        config = start_state["config"]  # so the bots are told the configuration the state plays by
    check_config(game, config)
    limits = limits_for(game, args.turn_ms)
    if args.replay:
        check_writable(args.replay)
    if args.sandbox == "docker":
        docker_preflight()
    from armada.referee.match import play_match

    with ExitStack() as stack:
        sources = [stack.enter_context(resolve(spec, game)) for spec in (args.bot1, args.bot2)]
        labels = unique_labels(sources)
        bots = {seat: connection(src, args.sandbox, label)
                for seat, (src, label) in enumerate(zip(sources, labels, strict=True), start=1)}
        print(f"armada: {game}, seed {seed}: {labels[0]} (seat 1) vs {labels[1]} (seat 2)", file=sys.stderr)
        outcome = play_match(game, bots, seed=seed, config=config, limits=limits, start_state=start_state)
    written = None
    if args.replay:
        from armada.replay import write_replay

        try:
            write_replay(outcome.replay, args.replay)
        except OSError as exc:
            raise CliError(f"the match was played but its replay could not be written to {args.replay}: "
                           f"{exc.strerror or exc}") from exc
        written = args.replay
    summary = outcome.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(describe(summary, labels, written))
        if args.verbose:
            for player in outcome.players:
                log = output.tail(player.log or "", 20)
                print(f"\nlog of seat {player.seat} ({player.name}), last lines:")
                print(output.indent(log) if log else "    (empty)")
    return 0


def check_writable(path: str) -> None:
    """Fail before the match when the replay file cannot be written."""
    from pathlib import Path

    target = Path(path)
    if target.is_dir():
        raise CliError(f"--replay: {path} is a folder; give a file name such as match.json.gz")
    if not target.parent.is_dir():
        raise CliError(f"--replay: folder {target.parent} does not exist")


def winner_text(summary: dict[str, Any]) -> str:
    winner = summary.get("winner")
    if winner is None:
        return f"draw ({summary['outcome']})"
    names = {p["seat"]: p["name"] for p in summary["players"]}
    return f"seat {winner}, {names.get(winner, '?')}, by {summary['outcome']}"


def describe(summary: dict[str, Any], labels: list[str], replay: str | None) -> str:
    """The readable summary of a played match."""
    lines = [
        f"game:    {summary['game']}",
        f"seed:    {summary['seed']}",
        f"winner:  {winner_text(summary)}",
        f"turns:   {summary['turns']}",
    ]
    rows = []
    for p in summary["players"]:
        label = labels[p["seat"] - 1] if 0 < p["seat"] <= len(labels) else ""
        shown = p["name"] if p["name"] == label else f"{p['name']} ({label})"
        rows.append([p["seat"], shown, p["status"], p.get("detail") or ""])
    lines.append("")
    lines.append(output.table(["seat", "bot", "status", "detail"], rows, right=[0]))
    lines.append("")
    lines.append(f"replay:  {replay}" if replay else "replay:  not saved (use --replay FILE)")
    return "\n".join(lines)
