"""Files a command writes beside a match: the --log-dir folder and each seat's captured stderr
(`armada play` and `armada tournament`)."""

from __future__ import annotations

import re
from pathlib import Path

from armada.cli.common import CliError
from armada.referee.match import PlayerReport
from armada.safefile import write_bytes_atomic


def prepare_log_dir(path: str, option: str = "--log-dir") -> None:
    """Create the folder of OPTION (--log-dir, --replay-dir) and its parents before the match;
    CliError naming OPTION if that is impossible."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise CliError(f"{option}: {path} is not a folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{option}: cannot create folder {path}: {exc.strerror or exc}") from exc


def safe_name(name: str) -> str:
    """A bot name made safe for a file name: ASCII letters, digits, '-', '_' and '.', at most 40 characters."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._-")[:40]
    return cleaned or "bot"


def safe_names(names: list[str]) -> dict[str, str]:
    """Each of `names` made safe (`safe_name`) and apart: a name another one was made into first gets
    `-2`, `-3`... (a trial: bots labelled `builtin:greedy` and `builtin_greedy` wrote one replay file)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        base = safe_name(name)
        candidate, n = base, 1
        while candidate.lower() in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate.lower())
        out[name] = candidate
    return out


def write_logs(players: list[PlayerReport], folder: str) -> list[str]:
    """Write each seat's captured stderr to FOLDER/seatN-NAME.log; returns the paths written."""
    paths = []
    for player in players:
        path = Path(folder) / f"seat{player.seat}-{safe_name(player.name)}.log"
        try:
            write_bytes_atomic(path, (player.log or "").encode("utf-8"))
        except OSError as exc:
            raise CliError(f"the match was played but the log of seat {player.seat} could not be written "
                           f"to {path}: {exc.strerror or exc}") from exc
        paths.append(str(path))
    return paths
