"""`armada dataset download`: the site's public replays as a training set in a folder."""

from __future__ import annotations

import argparse
import math
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from armada.botspec import GAMES
from armada.cli import datasets
from armada.cli.client import ApiClient, RemoteError, run_remote
from armada.cli.common import CliError, positive_int_arg
from armada.cli.config import settings

EPILOG = """\
examples:
  armada dataset download --game galaxy --limit 500 replays/
  armada dataset download --game galaxy --min-score 20 --since 2026-03-01 --limit 2000 top/

Takes the newest N public replays of finished ranked matches that match (GET /api/replays/),
writes each as the site serves it (DIR/<match>.json.gz) after checking its size and SHA-256,
and DIR/manifest.jsonl (one row of the list per line, plus "file"). Run it again with the same
arguments: only what is missing or damaged is fetched. Read the folder from Python with
`armada.replay.read_dataset(DIR)`: each replay's (observation, reply) pairs per seat.
The site limits downloads per user (sent with your token when you are logged in).

Exit status: 0 done, 2 usage errors, refusals (a bad filter, too many requests) and network
errors, 3 a platform error or a replay that arrived damaged twice, 130 interrupted (what was
fetched stays; run it again to resume).
"""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "dataset", help="download the site's public replays to train on",
        description="The site's games as a dataset: `armada dataset download` fetches public replays in bulk.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION", title="actions", required=True)
    d = sub.add_parser(
        "download", help="fetch the newest public replays into a folder, checked, with a manifest",
        description="Fetch the newest LIMIT public replays of finished ranked matches into DIR, with checked "
        "checksums and DIR/manifest.jsonl; again with the same arguments, fetch only what is missing or damaged.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d.add_argument("folder", metavar="DIR", help="the folder to write (created when needed)")
    d.add_argument("--game", "-g", choices=GAMES, default="galaxy", help="the game (default: galaxy)")
    d.add_argument("--min-score", type=score_arg, metavar="S",
                   help="only matches whose two bots both had at least this shown ladder score (mu - 3 sigma)")
    d.add_argument("--since", type=since_arg, metavar="DATE",
                   help="only matches finished at or after DATE (ISO 8601: 2026-03-01 or 2026-03-01T12:00:00Z)")
    d.add_argument("--limit", "-n", type=positive_int_arg, default=100, metavar="N",
                   help="the newest N matching replays (default: 100)")
    d.add_argument("--server", metavar="URL", help="the site (default: $ARMADA_SERVER, else the one you logged in to)")
    d.set_defaults(run=run)


def score_arg(text: str) -> str:
    """argparse type for --min-score: a finite number, sent as typed (the site's message quotes it)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number (a shown ladder score), got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return text.strip()


def since_arg(text: str) -> str:
    """argparse type for --since: an ISO 8601 date or date and time (sent as given)."""
    try:
        datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an ISO 8601 date or time (2026-03-01, "
                                         f"2026-03-01T12:00:00Z), got {text!r}") from None
    return text.strip()


def nothing_listed(query: dict[str, str]) -> str:
    """Why a download found no replays, as far as the query tells."""
    if query["game"] == "mothership":
        return ("Mothership Down has no ranked matches to list: its league plays every pairing in the engine "
                "from the stored orders (the site's /ladder/mothership/; `armada league` plays one here); "
                "a pairing's replay is GET /api/ladder/mothership/{a}/{b}/replay/")
    filters = " ".join(f"--{key.replace('_', '-')} {value}" for key, value in query.items() if key != "game")
    return f"no finished ranked {query['game']} match has a public replay" + (f" for {filters}" if filters else "")


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if folder.exists() and not folder.is_dir():
        raise CliError(f"{folder} exists and is not a folder")
    query = {"game": args.game}
    if args.min_score is not None:
        query["min_score"] = args.min_score
    if args.since:
        query["since"] = args.since
    current = settings(args.server)
    client = ApiClient(current.server, current.token)

    def body() -> int:
        client.check_version()  # an unreachable site stops here, before DIR is made: no empty folder left
        made = [path for path in (folder, *folder.parents) if not path.exists()]  # this run makes them
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create {folder}: {exc.strerror or exc}") from None
        try:
            done = datasets.download(client, query, args.limit, folder, sys.stderr)
        except KeyboardInterrupt:
            raise RemoteError(f"interrupted; the replays fetched so far stay in {folder} and the manifest is "
                              "written when a run ends: run the same command again to fetch the rest",
                              exit_code=130) from None
        except BaseException:  # refused (a bad filter) or failed before a file: no empty folder left
            if made and not any(folder.iterdir()):
                for path in made:
                    path.rmdir()
            raise
        print(f"{done.rows} replays in {folder}: {done.fetched} downloaded ({done.fetched_bytes:,} bytes), "
              f"{done.kept} already there")
        if done.earlier_rows:
            print(f"manifest: {folder / datasets.MANIFEST}, left as it was ({done.earlier_rows} rows of an earlier "
                  "run: this one matched nothing)")
        else:
            print(f"manifest: {folder / datasets.MANIFEST}")
        if not done.rows:
            print(f"armada: note: {nothing_listed(query)}", file=sys.stderr)
        elif done.rows < args.limit:
            print(f"armada: note: only {done.rows} replays match (--limit {args.limit}): that is all the site has "
                  "for these filters now", file=sys.stderr)
        return 0

    return run_remote(body)
