"""The `armada` command: parser and dispatch to one module per subcommand."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from armada import __version__
from armada.cli.commands import (
    challenge,
    dataset,
    docs,
    env,
    league,
    login,
    new,
    play,
    replay,
    submit,
    team,
    tournament,
)
from armada.cli.common import CliError
from armada.referee.connection import Unavailable

EPILOG = """\
examples:
  armada new mybot --game galaxy            start a bot from the greedy starter
  armada play mybot/ builtin:greedy         one match, readable summary
  armada play mybot/ builtin:random --seed 7 --replay m.json.gz --json
  armada tournament mybot/ builtin:greedy builtin:random -n 10 --jobs 4
  armada replay m.json.gz --turn 30         the board after turn 30 and that turn's events
  armada league builtin:greedy builtin:balanced race/   a Mothership Down league table
  armada login http://127.0.0.1:8000        store an API token for that site
  armada submit mybot                       upload bot mybot (its game from mybot/armada.json), wait
  armada challenge mybot rival --wait       a match on the site against rival, and its result
  armada dataset download --limit 500 d/    the site's newest public Galaxy replays, to train on
  armada docs galaxy                        the Galaxy rules (`armada docs` lists every document)
  armada env                                the server's Python, PyTorch, scikit-learn, onnxruntime, numpy

Run `armada COMMAND --help` for the options of each command, `armada docs cli` for all of them.
"""


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser: unknown arguments are its own usage error (`usage: armada play ...`).

    The subparsers action only asks a subcommand for the arguments it knows and hands the rest
    back to the top-level parser, whose error would show the top-level usage instead.
    """

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        parsed, extras = super().parse_known_args(*args, **kwargs)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


class ReaderTolerantStdout(io.TextIOBase):
    """sys.stdout while a command runs: once the program reading it has stopped (`| head -1`), the
    rest of the output is dropped instead of failing the command, whose work goes on and whose exit
    status is that of the work (cli.md: 0 when it was done), with no traceback."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.reader_gone = False

    @property
    def encoding(self) -> str:  # type: ignore[override]  # (TextIOBase's is None)
        return str(getattr(self.stream, "encoding", None) or "utf-8")

    def isatty(self) -> bool:
        return bool(self.stream.isatty())

    def fileno(self) -> int:
        return self.stream.fileno()

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self.drop_output()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self.drop_output()

    def drop_output(self) -> None:
        """Write no more, and point the stream's file at /dev/null so what it still buffers
        leaves quietly when Python exits (else: `Exception ignored ... BrokenPipeError`)."""
        self.reader_gone = True
        try:
            fd = self.stream.fileno()
        except (OSError, ValueError):  # a stream with no file (a test's capture): nothing buffered to lose
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="armada",
        description="Armada: play, test and inspect bots for the Armada arena "
        "(games: galaxy, mothership) on your own machine, read the rules offline, "
        "and submit your bots to the site and challenge others there.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"armada {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands", parser_class=CommandParser)
    for module in (play, tournament, league, new, replay, login, submit, challenge, team, dataset, docs, env):
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 usage or input error, or no sandbox)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    stdout = sys.stdout
    sys.stdout = guard = ReaderTolerantStdout(stdout)
    try:
        status = int(args.run(args))
        guard.flush()  # what is still buffered: a reader gone is found here, not at exit
        return status
    except (CliError, Unavailable) as exc:  # Unavailable: e.g. the Docker engine went away, nothing was played
        print(f"armada: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("armada: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # not stdout's (ReaderTolerantStdout takes those): the work was cut short
        print("armada: error: broken pipe", file=sys.stderr)
        return 1
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
