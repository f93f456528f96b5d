"""`armada docs`: the documents a bot author reads, from the installed SDK (armada.docs)."""

from __future__ import annotations

import argparse
import os
import sys
import webbrowser
from pathlib import Path
from typing import Any

from armada import __version__, docs
from armada.cli.common import CliError

EPILOG = """\
examples:
  armada docs                       list the topics
  armada docs galaxy                the Galaxy rules, as Markdown text
  armada docs protocol | less       page through the raw protocol
  armada docs galaxy-schema --open  the Galaxy JSON schema in your browser
  armada docs --open --out ./docs   every topic as HTML pages in ./docs, opened at the list

--open writes every topic as a self-contained HTML page (SLUG.html, linked to each other,
no network needed) into --out DIR (default: $XDG_CACHE_HOME/armada/docs-VERSION, else
~/.cache/armada/docs-VERSION) and opens TOPIC's page (or the list) in your default browser;
the page's path is printed, so you can open it yourself where no browser starts.
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "docs", help="read the rules, the protocol and the SDK's documentation offline",
        description="Print one of the documents that ship with the SDK (rules, protocol, bot library, CLI, ...), "
        "or list them.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("topic", metavar="TOPIC", nargs="?", help="the document to print (default: list them)")
    p.add_argument("--open", action="store_true", help="render the documents as HTML pages and open TOPIC's")
    p.add_argument("--out", metavar="DIR", help="with --open: the folder the pages go to")
    p.set_defaults(run=run)


def default_folder() -> Path:
    """Where --open writes the pages: one folder per SDK version in the user's cache."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "armada" / f"docs-{__version__}"


def listing() -> str:
    """The topics, one a line: slug and title."""
    topics = docs.topics()
    width = max(len(t.slug) for t in topics)
    lines = ["topics (`armada docs TOPIC` prints one, `armada docs TOPIC --open` shows it in a browser):"]
    lines += [f"  {t.slug:<{width}}  {t.title}" for t in topics]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.out and not args.open:
        raise CliError("--out goes with --open (the folder of the HTML pages)")
    try:
        chosen = docs.topic(args.topic) if args.topic else None
    except docs.UnknownTopic as exc:
        raise CliError(str(exc)) from None
    if args.open:
        return open_pages(chosen.slug if chosen else None, Path(args.out) if args.out else default_folder())
    if chosen is None:
        print(listing())
    else:
        sys.stdout.write(docs.text(chosen.slug))
    return 0


def open_pages(slug: str | None, folder: Path) -> int:
    """Write the HTML pages, print the chosen one's path and open it; say so when no browser opens."""
    from armada.docs import render

    try:
        written = render.write_all(folder)
    except OSError as exc:
        raise CliError(f"cannot write the pages into {folder}: {exc.strerror or exc}") from exc
    path = written[slug or "index"].resolve()
    print(f"docs written to {path}")
    if not webbrowser.open(path.as_uri()):
        print(f"armada: no browser could be opened here; open {path} in one", file=sys.stderr)
    return 0
