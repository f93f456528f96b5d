"""`armada play`: one match between two bots on this machine."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from armada import stack
from armada.botlog import crash_reason
from armada.botspec import BUILTIN_PREFIX
from armada.cli import botinfo, output
from armada.cli.common import (
    CliError,
    add_game_arg,
    add_sandbox_arg,
    check_config,
    connection,
    docker_preflight,
    get_engine,
    load_config,
    millis_arg,
    random_seed,
    refuse_folder_name,
    refuse_overwriting,
    resolve_all,
    seed_arg,
    time_limits_for,
)
from armada.cli.logfiles import prepare_log_dir, write_logs
from armada.cli.states import load_start_state, state_file, state_seed

if TYPE_CHECKING:
    from armada.botspec import BotSource

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
  armada play mybot/ builtin:greedy --init-ms 10000     a tighter start-up than the site's
  armada play mybot/ builtin:greedy --from-state match.json.gz#turn=40
  armada play mybot/ builtin:greedy --sandbox docker
  armada play mybot/ builtin:greedy --log-dir logs

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
    p.add_argument("--seed", "-s", type=seed_arg,
                   help="match seed (default: a random one, printed); not with --from-state")
    p.add_argument("--replay", "-r", metavar="FILE", help="write the replay to FILE (gzipped JSON, e.g. match.json.gz)")
    p.add_argument("--json", action="store_true", help="print only a JSON summary on stdout")
    add_sandbox_arg(p)
    p.add_argument("--from-state", metavar="FILE",
                   help="start from a saved state: a dump written by `armada replay --dump-state`, "
                   "or REPLAY.json.gz#turn=N for the position after turn N of a replay "
                   "(the state's own generator continues: no --seed)")
    p.add_argument("--turn-ms", type=millis_arg, metavar="N",
                   help="time per request in milliseconds (default: 1000, mothership 2000)")
    p.add_argument("--init-ms", type=millis_arg, metavar="N",
                   help="time for start-up and the init reply in milliseconds (default: 30000, as on the site)")
    p.add_argument("--config", "-c", metavar="JSON-or-FILE",
                   help="game configuration: a JSON object, or a file holding one")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print the last 20 lines of each bot's log (stderr)")
    p.add_argument("--log-dir", metavar="DIR",
                   help="write each bot's captured stderr (its first and last 32 KiB) to "
                   "DIR/seat1-NAME.log and DIR/seat2-NAME.log (DIR is created)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game, note = botinfo.match_game([args.bot1, args.bot2], args.game)
    if note:
        print(f"armada: note: {note}", file=sys.stderr)
    if args.from_state and args.config:
        raise CliError("--config cannot be combined with --from-state: the state carries its configuration")
    if args.from_state and args.seed is not None:
        raise CliError("--seed cannot be combined with --from-state: the state carries its own random "
                       "generator, so a seed would change nothing")
    config = load_config(args.config)
    start_state = load_start_state(args.from_state, game) if args.from_state else None
    if start_state is not None:
        recorded = state_seed(start_state)
        seed = recorded if recorded is not None else 0  # the replay format needs a number
        if isinstance(start_state.get("config"), dict):
            config = start_state["config"]  # so the bots are told the configuration the state plays by
    else:
        recorded = seed = args.seed if args.seed is not None else random_seed()
    check_config(game, config)
    limits = time_limits_for(game, args.turn_ms, args.init_ms)
    if args.replay:
        check_writable(args.replay)
        refuse_overwriting("--replay", args.replay, files_read(args))
    if args.log_dir:
        prepare_log_dir(args.log_dir)
    if args.sandbox == "docker":
        docker_preflight()
    from armada.referee.match import play_match

    with ExitStack() as stack:
        sources, labels = resolve_all(stack, [args.bot1, args.bot2], game)
        bots = {seat: connection(src, args.sandbox, label)
                for seat, (src, label) in enumerate(zip(sources, labels, strict=True), start=1)}
        print(f"armada: {game}, {seed_text(recorded, args.from_state)}: "
              f"{labels[0]} (seat 1) vs {labels[1]} (seat 2)", file=sys.stderr)
        if args.sandbox == "process":
            say_parity([src for spec, src in zip([args.bot1, args.bot2], sources, strict=True)
                        if not spec.startswith(BUILTIN_PREFIX)])
        outcome = play_match(game, bots, seed=seed, config=config, limits=limits, start_state=start_state)
    written = None
    if args.replay:
        from armada.drawing import with_drawings
        from armada.replay import write_replay

        try:  # a local replay carries what the bots drew (replay-format.md, "Drawings")
            write_replay(with_drawings(outcome.replay, {p.seat: p.debug for p in outcome.players}), args.replay)
        except OSError as exc:
            raise CliError(f"the match was played but its replay could not be written to {args.replay}: "
                           f"{exc.strerror or exc}") from exc
        written = args.replay
    logs = write_logs(outcome.players, args.log_dir) if args.log_dir else []
    summary = outcome.summary()
    for entry, player in zip(summary["players"], outcome.players, strict=True):
        reason = crash_reason(player.log) if player.status == "crashed" else ""
        if reason:
            entry["reason"] = reason
    if args.from_state:
        summary["seed"] = recorded
        summary["from_state"] = args.from_state
    if args.json:
        print(json.dumps(summary))
        for player in outcome.players:
            if player.status not in ("ok", "invalid"):
                print(output.log_tail(player.seat, player.name, player.log, TAIL_LINES, hint=not args.log_dir),
                      file=sys.stderr)
        if logs:
            print(f"armada: bot logs written to {', '.join(logs)}", file=sys.stderr)
    else:
        print(describe(summary, labels, written, logs))
        for player in outcome.players:
            if args.verbose or player.status not in ("ok", "invalid"):
                print()
                print(output.log_tail(player.seat, player.name, player.log, 20 if args.verbose else TAIL_LINES,
                                      hint=not args.log_dir))
    return 0


def say_parity(sources: list[BotSource]) -> None:
    """Say once (stderr) where a local bot would find other versions than on the server, and which
    of its imports the server does not have at all."""
    for line in stack.parity_notes([src.script if src.single_file else src.code_dir for src in sources]):
        print(f"armada: note: {line}; `armada env` lists the server's versions", file=sys.stderr)
    for line in dict.fromkeys(line for src in sources for line in stack.unavailable_notes(src.script)):
        print(f"armada: note: {line}; `armada env` lists the server's libraries", file=sys.stderr)


#: Log lines shown without --verbose for a bot that crashed, timed out or broke the protocol.
TAIL_LINES = 8


def seed_text(seed: int | None, from_state: str | None) -> str:
    """How the seed is shown: a number, or where the state came from (its generator decides)."""
    if not from_state:
        return f"seed {seed}"
    return f"from state {from_state}" + (f" (seed {seed})" if seed is not None else "")


def check_writable(path: str) -> None:
    """Fail before the match when the replay file cannot be written."""
    refuse_folder_name("--replay", path, "match.json.gz")
    target = Path(path)
    if target.is_dir():
        raise CliError(f"--replay: {path} is a folder; give a file name such as match.json.gz")
    if not target.parent.is_dir():
        raise CliError(f"--replay: folder {target.parent} does not exist")


def files_read(args: argparse.Namespace) -> list[tuple[str | Path, str]]:
    """The files this match reads, which its replay must not replace: each bot's code and the
    armada.json beside it (`bot_files`), the --from-state file and the --config file."""
    files: list[tuple[str | Path, str]] = []
    for seat, spec in enumerate([args.bot1, args.bot2], start=1):
        files += bot_files(spec, seat)
    if args.from_state:
        files.append((state_file(args.from_state), "the --from-state file"))
    if args.config:
        files.append((args.config, "the --config file"))
    return files


def bot_files(spec: str, seat: int) -> list[tuple[str | Path, str]]:
    """The files of BOT `spec` a match reads: its code (a .py or .zip given, else the folder's main.py)
    and, for a folder or a .py, the armada.json naming its game (botinfo.match_game); none for a starter."""
    if spec.startswith(BUILTIN_PREFIX):
        return []
    path = Path(spec)
    code = path / "main.py" if path.is_dir() else path
    files: list[tuple[str | Path, str]] = [(code, f"the code of the bot in seat {seat}")]
    if path.is_dir() or path.suffix == ".py":
        files.append((code.parent / botinfo.INFO_FILE, f"the armada.json of the bot in seat {seat}"))
    return files


def winner_text(summary: dict[str, Any]) -> str:
    names = {p["seat"]: p["name"] for p in summary["players"]}
    return output.winner_text(summary.get("winner"), summary["outcome"], names)


def describe(summary: dict[str, Any], labels: list[str], replay: str | None, logs: list[str] | None = None) -> str:
    """The readable summary of a played match."""
    seed = summary["seed"]
    if summary.get("from_state"):
        seed_line = f"from state {summary['from_state']}" + (f" (seed {seed})" if seed is not None else "")
    else:
        seed_line = str(seed)
    lines = [
        f"game:    {summary['game']}",
        f"seed:    {seed_line}",
        f"winner:  {winner_text(summary)}",
        f"{get_engine(summary['game']).turns_label + ':':<8} {summary['turns']}",
    ]
    rows = []
    for p in summary["players"]:
        label = labels[p["seat"] - 1] if 0 < p["seat"] <= len(labels) else ""
        shown = p["name"] if p["name"] == label else f"{p['name']} ({label})"
        rows.append([p["seat"], shown, *output.status_cells(p)])
    lines.append("")
    lines.append(output.table(["seat", "bot", "status", "detail"], rows, right=[0]))
    lines.append("")
    lines += output.seat_notes(summary["players"])
    lines.append(f"replay:  {replay}" if replay else "replay:  not saved (use --replay FILE)")
    if logs:
        lines.append(f"logs:    {', '.join(logs)}")
    return "\n".join(lines)
