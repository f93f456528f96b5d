"""Helpers shared by the subcommands: errors, seeds, configs, limits and bot connections."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from armada.botspec import GAMES, BotSource, BotSpecError, resolve_bot
from armada.referee.connection import BotConnection, Unavailable
from armada.referee.game_driver import LARGEST_SEED

if TYPE_CHECKING:
    from armada.games.base import Game
    from armada.referee.match import Limits

#: Largest seed accepted (seeds are stored as JSON integers and fed to the engine generator).
MAX_SEED = LARGEST_SEED
#: Largest --turn-ms / --init-ms: a day (a larger wait overflows the clocks' timeouts).
MAX_MS = 86_400_000
SANDBOXES = ("process", "docker")


class CliError(Exception):
    """A usage or input error: printed as `armada: error: MESSAGE`, exit status 2."""


def seed_arg(text: str) -> int:
    """argparse type for --seed: a non-negative integer."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a whole number, got {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"seed must be between 0 and {MAX_SEED}, got {value}")
    return value


def positive_int_arg(text: str) -> int:
    """argparse type for counts and milliseconds: an integer >= 1."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def millis_arg(text: str) -> int:
    """argparse type for --turn-ms and --init-ms: milliseconds from 1 to MAX_MS (a number the clocks can wait)."""
    value = positive_int_arg(text)
    if value > MAX_MS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_MS} milliseconds (a day), got {value}")
    return value


def random_seed() -> int:
    """A fresh seed for a match whose seed was not given (printed so it can be replayed)."""
    return random.SystemRandom().randrange(2**31)


def add_game_arg(parser: argparse.ArgumentParser) -> None:
    """--game for commands that play bots: None when not given, so the bots' armada.json can say
    (botinfo.match_game)."""
    parser.add_argument("--game", "-g", choices=GAMES,
                        help="which game to play (default: the one the bots' armada.json names, else galaxy)")


def add_sandbox_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox", choices=SANDBOXES, default="process",
        help="run bots as local processes (default, no isolation) or in Docker containers "
        "(needs the armada-sandbox package, a running Docker engine and the bot image)",
    )


def refuse_folder_name(option: str, out: str, example: str) -> None:
    """CliError when OUT, a file to write, is written as a folder (`out/`): it was written as a file
    named like the folder (an SDK trial); `example` is a file name to suggest in it."""
    if out.endswith(("/", os.sep)) or os.path.basename(out) in (".", ".."):  # (`newdir/.` too: a review)
        folder = out if out.endswith(("/", os.sep)) else out + os.sep
        raise CliError(f"{option} {out}: a folder's name; give a file name, such as {folder}{example}")


def refuse_overwriting(option: str, out: str, inputs: list[tuple[str | Path, str]]) -> None:
    """CliError when OUT is one of the files this command reads (by any name: a link, `./x`),
    before anything is done: writing there would replace it. `inputs` are (path, what it is)."""
    for path, what in inputs:
        try:
            same = os.path.samefile(out, path)
        except (OSError, ValueError):  # either one missing (nothing to lose), or no path at all
            continue
        if same:
            raise CliError(f"{option}: {out} is {what}; writing there would replace it: give another file name")


#: The files that make a folder a bot's: its code, or the file `armada new` writes beside it.
BOT_FOLDER_MARKS = ("main.py", "armada.json")


def refuse_bot_code(option: str, out: str) -> None:
    """CliError when OUT, a file to write, is Python code (a `.py`) or inside a bot's folder (one
    holding main.py or armada.json): writing there would replace or add to a bot's code."""
    folder = Path(out).parent
    marks = [name for name in BOT_FOLDER_MARKS if (folder / name).is_file()]
    if marks:
        raise CliError(f"{option}: {out} is in a bot's folder ({folder} holds {marks[0]}); "
                       "give a file outside it")
    if out.lower().endswith(".py"):
        raise CliError(f"{option}: {out} is a Python file, maybe a bot's code; give another file name")


def get_engine(game: str) -> Game:
    from armada.games.registry import get_game

    return get_game(game)


def load_config(text: str | None) -> dict[str, Any] | None:
    """The --config value: a JSON object given inline or as a file name."""
    if text is None:
        return None
    stripped = text.strip()
    if stripped.startswith("{"):
        source, raw = "--config", stripped
    else:
        path = Path(text)
        if not path.is_file():
            raise CliError(f"--config: {text!r} is neither a JSON object nor a readable file")
        try:
            raw = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"--config: cannot read {text}: {exc}") from exc
        source = text
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CliError(f"{source}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise CliError(f"{source}: the configuration must be a JSON object")
    return data


def check_config(game: str, config: dict[str, Any] | None) -> None:
    """Reject a configuration the engine refuses, with the engine's message."""
    from armada.games.base import ConfigError

    try:
        get_engine(game).parse_config(config)
    except ConfigError as exc:
        raise CliError(f"bad {game} configuration: {exc}") from exc


def time_limits_for(game: str, turn_ms: int | None, init_ms: int | None = None) -> Limits:
    """The game's default limits, with `turn_ms` and `init_ms` when given."""
    from armada.referee.match import default_limits

    limits = default_limits(game)
    if init_ms is not None:
        limits = replace(limits, init_ms=init_ms)
    return replace(limits, turn_ms=turn_ms) if turn_ms is not None else limits


def resolve(spec: str, game: str) -> BotSource:
    try:
        return resolve_bot(spec, game)
    except BotSpecError as exc:
        raise CliError(str(exc)) from exc


def resolve_all(stack: ExitStack, specs: list[str], game: str) -> tuple[list[BotSource], list[str]]:
    """The sources of several specs (closed with `stack`) and their unique labels."""
    sources = [stack.enter_context(resolve(spec, game)) for spec in specs]
    return sources, unique_labels(sources)


def unique_labels(sources: list[BotSource]) -> list[str]:
    """Labels of the sources, made unique by numbering repeats (`greedy`, `greedy#2`); a number
    whose `label#N` is already a bot's label (a folder named `greedy#2`) is skipped."""
    taken = {source.label for source in sources}
    seen: set[str] = set()
    out = []
    for source in sources:
        label = source.label if source.label not in seen else next_free(source.label, taken)
        seen.add(source.label)
        taken.add(label)
        out.append(label)
    return out


def next_free(label: str, taken: set[str]) -> str:
    """The first `label#N` (N from 2) not in `taken`."""
    number = 2
    while f"{label}#{number}" in taken:
        number += 1
    return f"{label}#{number}"


def docker_preflight() -> None:
    """Raise CliError unless bots can run in Docker here (package, engine and bot image); say on
    stderr which image they run in (a trial: a re-run on a machine of two checkouts left it unsaid)."""
    try:
        from armada_sandbox import BOT_IMAGE, check_ready
    except ImportError as exc:
        raise CliError(
            f"--sandbox docker needs the armada-sandbox package ({exc}); "
            "it comes with a checkout of the Armada project, not with the SDK wheel: there, "
            "`pip install ./sandbox` and `make bot-image`; or use --sandbox process"
        ) from exc
    try:
        check_ready(on_stale=lambda problem: print(f"armada: warning: {problem}", file=sys.stderr))
    except Unavailable as exc:  # the engine does not answer, or the bot image is missing
        raise CliError(f"--sandbox docker: {exc}; or use --sandbox process") from exc
    print(docker_image_line(BOT_IMAGE, chosen=bool(os.environ.get("ARMADA_BOT_IMAGE"))), file=sys.stderr)


def docker_image_line(image: str, *, chosen: bool) -> str:
    """What `--sandbox docker` says of its image: `chosen` by ARMADA_BOT_IMAGE, or the default."""
    return f"armada: bots run in Docker image {image}" + (" (ARMADA_BOT_IMAGE)" if chosen else
                                                          " (ARMADA_BOT_IMAGE names another)")


def connection(source: BotSource, sandbox: str, label: str) -> BotConnection:
    """A not yet started connection running `source` the chosen way."""
    if sandbox == "docker":
        from armada_sandbox import DockerBot

        return DockerBot(source.code_dir, source.entry, label=label)
    return source.process_connection(label=label)
