"""`armada env`: the server's Python and ML stack, beside the versions of this machine's Python."""

from __future__ import annotations

import argparse
import json
from typing import Any

from armada import stack
from armada.cli import output

EPILOG = """\
examples:
  armada env            the server's versions beside this Python's
  armada env --json     the same as a JSON object: {"server": {...}, "local": {...}}

The server's versions ship with the SDK (armada/stack.py, generated from the bot image); every bot
of every match gets the same ones. Train with what you like, but save a model in a form these load:
see `armada docs bots-environment`, "The ML stack".
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "env", help="the server's Python and ML libraries (PyTorch, scikit-learn, onnxruntime, numpy)",
        description="Print the versions of Python and of the ML libraries every bot gets on the server, "
        "beside those of the Python that runs armada (and your bots under `armada play`).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print a JSON object instead of a table")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    local = stack.local_versions()
    if args.json:
        print(json.dumps({"server": stack.SERVER, "local": local}))
        return 0
    rows = []
    for name, server in stack.SERVER.items():
        mine = local.get(name)
        same = (mine is not None and mine.split(".")[:2] == server.split(".")[:2]) if name == "python" \
            else stack.same_release(mine, server)
        # (a library missing here matters only to a bot that imports it: `armada play` says so then)
        rows.append([name, server, mine or "not installed", "missing" if mine is None else "same" if same
                     else "differs"])
    print(output.table(["library", "server", "here", "here vs server"], rows))
    print("\nthreads: OMP_NUM_THREADS, MKL_NUM_THREADS and OPENBLAS_NUM_THREADS are the bot's CPU share "
          "(1 on the server); see `armada docs bots-environment`.")
    return 0
