"""`armada replay`: summary of a replay file, a Galaxy board or the Mothership rounds."""

from __future__ import annotations

import argparse
import json
import sys
import webbrowser
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from armada.cli import botinfo, output, replay_narration
from armada.cli.boards import galaxy_board, mothership_rounds
from armada.cli.common import (
    CliError,
    add_sandbox_arg,
    connection,
    docker_preflight,
    get_engine,
    refuse_bot_code,
    refuse_folder_name,
    refuse_overwriting,
    resolve_all,
    seed_arg,
)
from armada.cli.logfiles import prepare_log_dir, write_logs
from armada.cli.states import frame_turns, read_replay_or_fail, state_after_turn, write_state
from armada.logmarks import strip_marks
from armada.referee.match import PlayerReport
from armada.replay import ReplayError, seat_label
from armada.viewer import default_html_path, write_offline_html

EPILOG = """\
"Turn N" is the position after N turns have been played (0 = the start).

examples:
  armada replay match.json.gz                   summary and the final board
  armada replay match.json.gz --turn 30         the board after turn 30 and that turn's events
  armada replay match.json.gz --turn 30 --log-dir logs    ... with each bot's log lines of turn 30
  armada replay match.json.gz --events --seat 1 --kind battle
  armada replay match.json.gz --json            summary and the final frame as JSON
  armada replay match.json.gz --dump-state 40 --out t40.json
  armada play mybot/ builtin:greedy --from-state t40.json
  armada replay match.json.gz --html            write match.html, the replay in a browser (offline)
  armada replay match.json.gz --html --open     ... and open it
  armada replay match.json.gz --rerun 1 mybot/  feed mybot/ what seat 1 was sent; compare its replies
  armada replay match.json.gz --requests 1      print what seat 1 was sent, one JSON line per request

Galaxy boards show each planet's owner (1, 2, or . for neutral) and its garrison in MLE
(battleship 4, cruiser 2, launcher 1), then the fleets in flight. Mothership replays list
the battle round by round.
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "replay", help="show a replay: summary, board, state dumps",
        description="Read a replay written by `armada play --replay` (or the site) and show it.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # FILE is checked in `run` (not by argparse), so `--html FILE` (FILE taken for OUT) still reads FILE
    p.add_argument("file", metavar="FILE", nargs="?", help="replay file (.json.gz or .json)")
    p.add_argument("--turn", "-t", type=int, metavar="N",
                   help="galaxy: draw the board after turn N (default: the last) and list turn N's events")
    p.add_argument("--json", action="store_true", help="print the summary and the chosen frame as JSON")
    p.add_argument("--dump-state", type=int, metavar="N",
                   help="write the full game state after turn N, for `armada play --from-state`")
    p.add_argument("--out", "-o", metavar="FILE",
                   help="where --dump-state writes (default: REPLAYNAME-turnN.state.json beside the replay)")
    p.add_argument("--html", nargs="?", const="", metavar="OUT",
                   help="write one self-contained HTML viewer page (default: REPLAYNAME.html beside the replay)")
    p.add_argument("--open", action="store_true",
                   help="open the --html page in a browser (implies --html; with --turn N, at turn N)")
    p.add_argument("--rerun", nargs=2, metavar=("SEAT", "BOT"),
                   help="send BOT exactly the requests SEAT received in this match (same init, limits, "
                   "fog) and report the first turn where its replies differ; exit status 1 if one does")
    p.add_argument("--bot-seed", type=seed_arg, metavar="N",
                   help="with --rerun: the bot's ARMADA_BOT_SEED (the site's match page gives it to the owner)")
    p.add_argument("--requests", type=int, metavar="SEAT",
                   help="print the requests SEAT received, one JSON line each, as the referee sent them")
    add_sandbox_arg(p)
    p.set_defaults(sandbox=None)  # None: not given (`given_options`); `run` makes it process
    replay_narration.add_arguments(p)
    usage = p.format_usage().removeprefix("usage: ").rstrip("\n")
    p.usage = usage.replace("[FILE]", "FILE").replace("%", "%%")  # required all the same (`take_file`)
    p.set_defaults(run=run)


#: What each of the command's modes takes beside FILE (the mode "" shows the replay); another option
#: given is an error, not ignored.
MODE_OPTIONS: dict[str, tuple[str, ...]] = {
    "--rerun": ("--bot-seed", "--sandbox", "--log-dir"),
    "--requests": (),
    "--html": ("--open", "--turn"),
    "--dump-state": ("--out",),
    "": ("--turn", "--json", "--events", "--seat", "--kind", "--log-dir"),
}
#: The mode an option of no other mode goes with (for the message).
GOES_WITH = {"--bot-seed": "--rerun", "--sandbox": "--rerun", "--out": "--dump-state", "--open": "--html"}


def mode_of(args: argparse.Namespace) -> str:
    """The command's mode: the first of --rerun, --requests, --html (or --open), --dump-state given."""
    given = given_options(args)
    return next((mode for mode in ("--rerun", "--requests", "--html", "--dump-state") if mode in given), "")


def given_options(args: argparse.Namespace) -> list[str]:
    """The options given on the command line: those whose value is not argparse's default (None, False)."""
    values = {"--turn": args.turn is not None, "--json": args.json, "--dump-state": args.dump_state is not None,
              "--out": args.out is not None, "--html": args.html is not None or args.open, "--open": args.open,
              "--rerun": bool(args.rerun), "--bot-seed": args.bot_seed is not None,
              "--requests": args.requests is not None, "--sandbox": args.sandbox is not None,
              "--events": args.events, "--seat": args.seat is not None, "--kind": bool(args.kind),
              "--log-dir": args.log_dir is not None}
    return [option for option, given in values.items() if given]


def check_options(args: argparse.Namespace) -> None:
    """CliError for an option the chosen mode does not take (before anything is read or shown)."""
    mode = mode_of(args)
    stray = [o for o in given_options(args) if o != mode and o not in MODE_OPTIONS[mode]]
    if mode == "--html" and args.turn is not None and not args.open:
        stray.append("--turn")  # (a page opened at turn N: --open --turn N)
    if not stray:
        return
    if mode == "--html":
        raise CliError(f"--html and --open write the viewer page only; drop {', '.join(stray)}"
                       + (" (--turn N goes with --open: the page opened at turn N)" if "--turn" in stray else ""))
    if mode:
        options = MODE_OPTIONS[mode]
        takes = (", ".join(options[:-1]) + " and " + options[-1] if len(options) > 1 else "".join(options)) \
            or "no other option"
        raise CliError(f"{mode} takes {takes}; drop {', '.join(stray)}")
    option = stray[0]
    raise CliError(f"{option} only goes with {GOES_WITH[option]}")


def summary(replay: dict[str, Any]) -> dict[str, Any]:
    """Game, seed, engine, players and result of a replay."""
    return {
        "game": replay["game"], "seed": replay["seed"], "engine_version": replay["engine_version"],
        "players": replay["seats"], "result": replay["result"],
        "from_state": "start_state" in replay,
    }


def recorded_frames(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """The frames stored in the replay (initial first), as the viewer shows them."""
    frames = [replay.get("initial")] + [step.get("frame") for step in replay["steps"]]
    return [f for f in frames if isinstance(f, dict)]


def pick_frame(frames: list[dict[str, Any]], turn: int | None) -> dict[str, Any] | None:
    """The frame after `turn` turns (None: the last frame); CliError if the replay lacks it."""
    if not frames:
        return None
    if turn is None:
        return frames[-1]
    turns = frame_turns(frames)
    for frame in frames:
        if frame.get("turn") == turn:
            return frame
    span = f"turns {turns[0]}..{turns[-1]}" if turns else "no turns"
    raise CliError(f"--turn {turn}: not in this replay ({span})")


def describe(info: dict[str, Any]) -> str:
    result = info["result"]
    names = {p["seat"]: p.get("name", "?") for p in info["players"]}
    won = output.winner_text(result.get("winner"), result["outcome"], names)
    lines = [
        f"game:    {info['game']} (engine {info['engine_version']})",
        f"seed:    {info['seed']}" + ("  (started from a saved state)" if info["from_state"] else ""),
        f"winner:  {won}",
        f"{get_engine(info['game']).turns_label + ':':<8} {result.get('turns')}",
    ]
    scores = result.get("scores") or {}
    if scores:
        lines.append(f"scores:  {json.dumps(scores, sort_keys=True)}")
    rows = [[p["seat"], seat_label(p), p.get("status", ""), p.get("detail") or ""] for p in info["players"]]
    lines += ["", output.table(["seat", "bot", "status", "detail"], rows, right=[0])]
    return "\n".join(lines)


#: The names a replay file ends with.
REPLAY_SUFFIXES = (".json.gz", ".gz", ".json")


def default_dump_path(replay_path: str, turn: int) -> str:
    base = replay_path
    for suffix in REPLAY_SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return f"{base}-turn{turn}.state.json"


def write_html(replay: dict[str, Any], args: argparse.Namespace) -> int:
    """--html / --open: write the offline viewer page, print its path, maybe open it (at --turn N)."""
    out = args.html or default_html_path(args.file)
    refuse_folder_name("--html", str(out), "match.html")
    refuse_overwriting("--html", str(out), [(args.file, "the replay this command reads")])
    try:
        path = write_offline_html(replay, out)
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror or exc}") from exc
    except ValueError:  # json.dumps(allow_nan=False): a browser's JSON has no NaN nor Infinity
        raise CliError(f"{args.file} holds NaN or Infinity, which JSON has not (a replay the referee writes "
                       "never does: was it edited?); the viewer cannot show it") from None
    print(f"viewer written to {path}")
    if args.open and not webbrowser.open(path.resolve().as_uri() + ("" if args.turn is None else f"#t={args.turn}")):
        print(f"armada: no browser could be opened here; open {path.resolve()} in one"
              + ("" if args.turn is None else f" (add #t={args.turn} to its address for turn {args.turn})"),
              file=sys.stderr)
    return 0


def rerun(replay: dict[str, Any], args: argparse.Namespace) -> int:
    """--rerun SEAT BOT: `turn N differs` (exit 1, with the bot's log) or `all N turns agree` (exit 0)."""
    from armada.referee.rerun import rerun as rerun_seat
    from armada.referee.rerun import seat_requests

    seat_text, spec = args.rerun
    try:
        seat = int(seat_text)
    except ValueError:
        raise CliError(f"--rerun: SEAT is 1 or 2, got {seat_text!r}") from None
    recorded = botinfo.recorded_game_of(spec)
    if recorded is not None and recorded[0] != replay["game"]:
        raise CliError(f"--rerun: {recorded[1]} names {recorded[0]}, and this is a {replay['game']} replay: "
                       f"re-run a {recorded[0]} match with this bot")
    try:
        planned = seat_requests(replay, seat)
    except ReplayError as exc:
        raise CliError(f"--rerun: {exc}") from None
    if args.sandbox == "docker":
        docker_preflight()
    if args.log_dir:
        prepare_log_dir(args.log_dir)
        kept = sorted(Path(args.log_dir).glob(f"seat{seat}-*.log"))
        if kept:  # (the folder `armada play --log-dir` wrote for the match, say: its log is the match's)
            raise CliError(f"--log-dir: {args.log_dir} holds a log of seat {seat} already ({kept[0].name}); "
                           "give another folder")
    names = {p["seat"]: p.get("name", "") for p in replay["seats"]}
    # the requests the bot answers (`init` included), not the `end` the line names after them
    count = sum(1 for request in planned.requests if request.message["type"] != "end")
    failed_last = bool(planned.requests and planned.requests[-1].fault)
    # a seat that failed is sent no `end` (a trial: "64 messages (the requests, then `end`)" for a crash)
    sent = f"{count} request{'' if count == 1 else 's'}" + ("" if failed_last else ", then `end`")
    with ExitStack() as stack:
        sources, labels = resolve_all(stack, [spec], replay["game"])
        print(f"armada: re-running seat {seat} ({names.get(seat, '?')}) of this {replay['game']} match with "
              f"{labels[0]}: {sent}"
              + ("" if planned.limits_recorded else " (limits not recorded: the defaults)"), file=sys.stderr)
        report = rerun_seat(replay, seat, connection(sources[0], args.sandbox, labels[0]), bot_seed=args.bot_seed)
    print(report.describe())
    failed = report.difference is not None
    written = write_logs([PlayerReport(seat, labels[0], "ok", "", report.log or "")], args.log_dir) \
        if args.log_dir else []
    if failed or report.crashed or strip_marks(report.log or "").strip():  # what it printed: the point of
        print()  # re-running with debug output, whether or not its replies agree
        print(output.log_tail(seat, labels[0], report.log, 20, hint=not written))
    for path in written:
        print(f"its whole log: {path}")
    if failed and args.bot_seed is None:
        print("armada: note: no --bot-seed given: the bot's ARMADA_BOT_SEED was the one `armada play --seed` "
              "gives; a site's match keys it with a secret, so a bot that seeds its moves with it plays "
              "differently here: the match page (a validation game: the version's page) gives its owner the "
              "command with --bot-seed", file=sys.stderr)
    return 1 if failed else 0


def print_requests(replay: dict[str, Any], seat: int) -> int:
    """--requests SEAT: the seat's requests as JSON lines."""
    from armada.referee.rerun import requests_jsonl

    try:
        sys.stdout.write(requests_jsonl(replay, seat))
    except ReplayError as exc:
        raise CliError(f"--requests: {exc}") from None
    return 0


def take_file(args: argparse.Namespace) -> None:
    """FILE given, or taken back from `--html FILE` (argparse gives OUT the first word); else CliError."""
    if args.file is not None:
        return
    if args.html and args.html.endswith(REPLAY_SUFFIXES):
        args.file, args.html = args.html, ""
        return
    raise CliError("which replay? give its FILE, e.g. `armada replay match.json.gz` (`armada replay -h`)")


def run(args: argparse.Namespace) -> int:
    take_file(args)
    check_options(args)
    args.sandbox = args.sandbox or "process"
    replay = read_replay_or_fail(args.file)
    if args.rerun:
        return rerun(replay, args)
    if args.requests is not None:
        return print_requests(replay, args.requests)
    if args.html is not None or args.open:
        return write_html(replay, args)
    if args.dump_state is not None:
        path = args.out or default_dump_path(args.file, args.dump_state)
        refuse_folder_name("--out", path, "state.json")
        if args.out is not None:  # (the default, NAME-turnN.state.json, is beside the replay wherever it is)
            refuse_bot_code("--out", path)
        refuse_overwriting("--out", path, [(args.file, "the replay this command reads")])
        write_state(state_after_turn(replay, args.dump_state), path)
        print(f"state after turn {args.dump_state} written to {path}")
        print(f"continue it:  armada play BOT BOT --game {replay['game']} --from-state {path}")
        return 0
    try:
        return show(replay, args)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        # read_replay checks the format's outline; a hand-edited frame or event may still be malformed
        raise CliError(f"{args.file}: a damaged replay, cannot show it ({type(exc).__name__}: {exc})") from exc


def show(replay: dict[str, Any], args: argparse.Namespace) -> int:
    """The summary, then the board of a turn, its events or the whole game's (Mothership: the rounds)."""
    info = summary(replay)
    if args.turn is not None and replay["game"] != "galaxy":
        raise CliError(f"--turn: a {replay['game']} replay has no turns to show, only the battle's "
                       f"{get_engine(replay['game']).turns_label}; drop --turn to list them")
    replay_narration.check(args)
    if args.events:
        if args.turn is not None:
            pick_frame(recorded_frames(replay), args.turn)  # a turn the replay lacks: said as for the board
        replay_narration.show_events(args, replay)
        return 0
    frame = pick_frame(recorded_frames(replay), args.turn)
    if args.json:
        logs = {"logs": replay_narration.turn_logs(args, replay, args.turn)} if args.log_dir else {}
        print(json.dumps({**info, "frame": frame, **logs}))
        return 0
    print(describe(info))
    if replay["game"] == "galaxy" and frame is not None:
        print()
        print(galaxy_board(frame, names={p["seat"]: p.get("name", "") for p in replay["seats"]}))
        if args.turn is not None:
            print()
            print(replay_narration.turn_text(args, replay, args.turn))
    elif replay["game"] == "mothership":
        print()
        print(mothership_rounds(replay, names={p["seat"]: p.get("name", "") for p in replay["seats"]}))
    return 0
