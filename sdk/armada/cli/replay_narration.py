"""`armada replay --events / --turn N [--log-dir DIR]`: what happened, event by event (armada.narration)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from armada.cli import output
from armada.cli.common import CliError
from armada.logmarks import lines_by_turn
from armada.narration import KINDS, Event, replay_events, select


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `armada replay` this module serves."""
    p.add_argument("--events", action="store_true",
                   help="list the events of the whole game (battles, captures, launches, probes, warnings, faults); "
                   "with --turn N, only turn N's, without the board")
    p.add_argument("--seat", type=int, choices=(1, 2), help="with --events or --turn: only this seat's events")
    p.add_argument("--kind", action="append", choices=KINDS, metavar="KIND",
                   help=f"with --events or --turn: only these kinds (repeatable): {', '.join(KINDS)}")
    p.add_argument("--log-dir", metavar="DIR",
                   help="with --turn: the folder `armada play --log-dir` wrote for this match; "
                   "shows each bot's log lines of that turn. With --rerun: a folder for the re-run bot's whole "
                   "log (seatN-NAME.log, as `armada play --log-dir` writes it; one holding a log of that seat "
                   "is refused)")


def line(event: Event, with_turn: bool) -> str:
    where = f"turn {event.turn:>3}  " if with_turn and event.turn is not None else ""
    return f"  {where}{event.kind:<11} {event.text}"


def chosen(args: argparse.Namespace, replay: dict[str, Any], turn: int | None) -> list[Event]:
    return select(replay_events(replay), turn=turn, seat=args.seat, kinds=args.kind)


def show_events(args: argparse.Namespace, replay: dict[str, Any]) -> None:
    """--events: every event of the game (filtered), one line each; with --turn N, turn N's only."""
    if args.json:
        logs = {"logs": turn_logs(args, replay, args.turn)} if args.turn is not None and args.log_dir else {}
        print(json.dumps({"events": [e.to_dict() for e in chosen(args, replay, args.turn)], **logs}))
        return
    if args.turn is not None:
        print(turn_text(args, replay, args.turn))
        return
    events = chosen(args, replay, None)
    print(f"events ({len(events)}):")
    for event in events:
        print(line(event, with_turn=True))


def turn_text(args: argparse.Namespace, replay: dict[str, Any], turn: int) -> str:
    """--turn N: that turn's events, then (with --log-dir) each bot's log lines of that turn."""
    events = chosen(args, replay, turn)
    parts = [f"events of turn {turn} ({len(events)}):"] + [line(e, with_turn=False) for e in events]
    if not events:
        parts.append("  (none)")
    for log in turn_logs(args, replay, turn):
        parts.append("")
        parts.append(f"log of seat {log['seat']} ({log['name'] or '?'}) in turn {turn}, {log['file']}:")
        parts.append(output.indent("\n".join(log["lines"])) if log["lines"] else "    (nothing)")
    return "\n".join(parts)


def turn_logs(args: argparse.Namespace, replay: dict[str, Any], turn: int) -> list[dict[str, Any]]:
    """With --log-dir, each seat's log lines of `turn` (--seat: that seat's only): `seat`, the bot's
    `name`, the log `file` and its `lines`; empty without --log-dir."""
    if not args.log_dir:
        return []
    names = {p["seat"]: p.get("name", "") for p in replay["seats"]}
    logs = []
    for seat, path in seat_logs(args.log_dir):
        if args.seat is not None and seat != args.seat:
            continue
        kept = lines_by_turn(path.read_text(encoding="utf-8", errors="replace")).get(turn, [])
        logs.append({"seat": seat, "name": names.get(seat, ""), "file": str(path), "lines": kept})
    return logs


def seat_logs(folder: str) -> list[tuple[int, Path]]:
    """The seat1-*.log / seat2-*.log files `armada play --log-dir` wrote; CliError when there are none."""
    base = Path(folder)
    if not base.is_dir():
        raise CliError(f"--log-dir: {folder} is not a folder")
    found = []
    for seat in (1, 2):
        files = sorted(base.glob(f"seat{seat}-*.log"))
        if len(files) > 1:
            raise CliError(f"--log-dir: {folder} holds several logs of seat {seat} "
                           f"({', '.join(f.name for f in files)}); give the folder of one match")
        found += [(seat, f) for f in files]
    if not found:
        raise CliError(f"--log-dir: no seat1-*.log or seat2-*.log in {folder} (written by `armada play --log-dir`)")
    return found


def check(args: argparse.Namespace) -> None:
    """Reject option combinations that mean nothing."""
    if args.log_dir is not None and args.turn is None:  # (`--log-dir ""` too: given, not used)
        raise CliError("--log-dir goes with --turn N (the log lines of that turn) "
                       "or --rerun (where its log is written)")
    if args.log_dir:
        seat_logs(args.log_dir)  # a folder without the logs: said before the board is shown
    if (args.seat is not None or args.kind) and not (args.events or args.turn is not None):
        raise CliError("--seat and --kind filter --events or --turn N")
