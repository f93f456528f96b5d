"""`armada new`: start a bot folder from a starter bot."""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from armada.botspec import BotSpecError, builtin_names, copy_starter
from armada.cli import botinfo, config
from armada.cli.common import GAMES, CliError
from armada.extras import install_line
from armada.safefile import umask
from armada.starters import imitation

EPILOG = """\
examples:
  armada new mybot --game galaxy                 main.py copied from the greedy starter
  armada new scout --game galaxy --from prober   start from another starter
  armada new race --game mothership --dir bots   creates bots/race/
  armada new learner --starter imitation         a bot trained on replays (Galaxy only;
                                                 armada docs imitation)

Starters: galaxy: random, greedy, prober, imitation; mothership: random, greedy, balanced.
`imitation` is a folder to train (main.py, train.py, encoding.py): its README says how.
The folder's armada.json records the game, so `armada submit NAME` needs no --game.
An existing folder is never overwritten.
"""

DEFAULT_STARTER = "greedy"
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: What _NAME_RE accepts, in words (the error message, --help and docs/cli.md say exactly this).
NAME_RULE = "1 to 64 ASCII letters (a-z, A-Z), digits, '-', '_' or '.', starting with a letter or digit"

README = """\
# {name}

An Armada bot for **{game}**, started from the `{starter}` starter bot.
All of its code is in `main.py`; add more files next to it if you like
(the folder is the bot).

## Try it locally

    armada play {path} builtin:random --game {game}
    armada play {path} builtin:greedy --game {game} --seed 1 --replay match.json.gz --verbose
    armada replay match.json.gz
    {compare}

Your bot talks to the referee over standard input and output; print your own debugging
lines to standard error (`self.log(...)`), never to standard output. The rules and the
bot library, offline: `armada docs {game}`, `armada docs bot-library` (`armada docs` lists
every document).

## Submit it

    armada login {site}{site_note}
    armada submit {path}{bot_option}

`armada submit` creates the bot `{bot}` ({bot_why}) on
the site if needed, uploads this folder (zipped with `main.py` at its top) and waits for the
site's validation match; if it fails you see why, with the end of your bot's log. The game
comes from `armada.json`, which `armada new` wrote. You can also upload a zip on the bot's
page on the site.
"""


def _compare(game: str, path: Path | str, others: str) -> str:
    """The README's line comparing the bot with the starters as the site ranks the game: Galaxy's
    ladder by rating (`armada tournament`), Mothership Down's league by points (`armada league`)."""
    if game == "mothership":
        return f"armada league {path} {others or 'builtin:random'}"
    return f"armada tournament {path} {others or 'builtin:random'} --game {game} -n 10"


#: The README's `armada login` line when the SDK knows no site (see `config.known_server`).
UNKNOWN_SITE = "https://YOUR-SITE"
UNKNOWN_SITE_NOTE = "     # your Armada site's address: the one you downloaded the SDK from"


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "new", help="create a bot folder from a starter bot",
        description="Create folder NAME holding main.py (a copy of a starter bot), a README and armada.json "
        "(the game it plays, for `armada submit`).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", metavar="NAME", help=f"name of the new bot folder: {NAME_RULE}")
    p.add_argument("--game", "-g", choices=GAMES, default=None,
                   help="which game the bot plays (required, but for a starter of one game: imitation plays galaxy)")
    p.add_argument("--from", "--starter", dest="starter", metavar="STARTER", default=DEFAULT_STARTER,
                   help=f"starter bot to copy (default: {DEFAULT_STARTER}); `imitation`: a bot to train on replays")
    p.add_argument("--dir", default=".", metavar="DIR",
                   help="where to create the folder (default: here); created if missing")
    p.set_defaults(run=run)


#: What the `learn` extra adds that train.py imports (PyTorch is said apart: its CPU build has its own index).
LEARN_MODULES = ("onnx", "onnxruntime", "gymnasium", "pettingzoo")


def _installed(module: str) -> bool:
    """Whether `module` can be imported here (found, not imported: PyTorch takes seconds to import)."""
    return importlib.util.find_spec(module) is not None


def run(args: argparse.Namespace) -> int:
    if args.game is None:
        if args.starter != imitation.NAME or len(imitation.GAMES) != 1:
            raise CliError(f"the following arguments are required: --game ({' or '.join(GAMES)})")
        args.game = imitation.GAMES[0]
    path = create_bot(args.name, args.game, args.starter, Path(args.dir))
    bot = botinfo.site_name(args.name)
    if bot != args.name:
        print(f"armada: warning: the site does not take {args.name!r} as a bot name ({botinfo.SITE_NAME_RULE}): "
              f"submit it with `armada submit {shlex.quote(str(path))} --bot {bot}` (its README says so)",
              file=sys.stderr)
    if args.starter == imitation.NAME:
        print(f"created {path}/ (the {imitation.NAME} starter: main.py, train.py, encoding.py, README.md, "
              f"{botinfo.INFO_FILE})")
        needs = ([] if _installed("torch") else
                 ["PyTorch (pip install torch --index-url https://download.pytorch.org/whl/cpu)"])
        if not all(_installed(module) for module in LEARN_MODULES):
            needs.append(install_line("learn"))
        if needs:  # what train.py needs, said before it is run
            print(f"needs: {' and '.join(needs)}")
        print(f"next:  armada dataset download --game {args.game} --limit 500 replays, then python "
              f"{shlex.quote(str(path / 'train.py'))} replays   (README.md and `armada docs imitation` say how)")
        return 0
    print(f"created {path}/ (main.py from the {args.game} starter '{args.starter}', README.md, "
          f"{botinfo.INFO_FILE})")
    print(f"try it:  armada play {shlex.quote(str(path))} builtin:random --game {args.game}")  # pasted as it is
    return 0


def create_bot(name: str, game: str, starter: str, parent: Path) -> Path:
    """Write parent/name with main.py, README.md and armada.json; raises CliError without touching anything
    on bad input."""
    if not _NAME_RE.fullmatch(name):
        raise CliError(f"bad bot name {name!r}: use {NAME_RULE}")
    if starter == imitation.NAME and game not in imitation.GAMES:
        raise CliError(f"the {imitation.NAME} starter plays {', '.join(imitation.GAMES)} only, not {game}")
    if starter not in builtin_names(game) and starter != imitation.NAME:
        names = [*builtin_names(game), *([imitation.NAME] if game in imitation.GAMES else [])]
        available = ", ".join(names) or "none installed"
        raise CliError(f"no starter bot {starter!r} for {game}; available: {available}")
    target = parent / name
    try:
        if parent.exists() and not parent.is_dir():
            raise CliError(f"--dir: {parent} is not a folder")
        if target.exists() or target.is_symlink():
            raise CliError(f"{target} already exists; choose another name or remove it first")
        parent.mkdir(parents=True, exist_ok=True)
        # Filled in a hidden folder beside it, then renamed: a failure (disk full) leaves no half-made bot.
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".part", dir=parent))
    except OSError as exc:  # e.g. a name too long for the file system
        raise CliError(f"cannot create {target}: {exc.strerror or exc}") from exc
    try:
        _fill(staging, target, name, game, starter)
        staging.chmod(0o777 & ~umask())  # mkdtemp makes it 0700; a new folder gets what mkdir gives
        if target.exists() or target.is_symlink():  # appeared meanwhile: never replace it
            raise CliError(f"{target} already exists; choose another name or remove it first")
        staging.rename(target)
    except OSError as exc:
        raise CliError(f"cannot create {target}: {exc.strerror or exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _fill(folder: Path, target: Path, name: str, game: str, starter: str) -> None:
    """Write the bot's files into `folder`; `target` is where it will be (for the README's commands)."""
    if starter == imitation.NAME:
        _copy_template(folder, target, name, game)
        return
    try:
        copy_starter(game, starter, folder / "main.py")
    except BotSpecError as exc:
        raise CliError(f"cannot copy starter {starter!r}: {exc}") from exc
    except OSError as exc:  # named after the bot's folder, not the hidden one it is made in
        raise CliError(f"cannot copy starter {starter!r} into {target}: {exc.strerror or exc}") from exc
    others = " ".join(f"builtin:{n}" for n in builtin_names(game) if n != starter)
    site = config.known_server()
    bot = botinfo.site_name(name)
    shell_path = shlex.quote(str(target))  # the README's commands are copied into a shell
    try:
        (folder / "README.md").write_text(
            README.format(name=name, game=game, starter=starter, path=shell_path,
                          compare=_compare(game, shell_path, others),
                          site=site or UNKNOWN_SITE, site_note="" if site else UNKNOWN_SITE_NOTE,
                          bot=bot, bot_option="" if bot == name else f" --bot {bot}",
                          bot_why="the folder's name; `--bot NAME` for another" if bot == name else
                          f"the site's bot names are {botinfo.SITE_NAME_RULE}, which {name!r} is not"),
            encoding="utf-8",
        )
        botinfo.record(folder, game, starter)
    except OSError as exc:
        raise CliError(f"cannot write into {target}: {exc.strerror or exc}") from exc


def _copy_template(folder: Path, target: Path, name: str, game: str) -> None:
    """Fill `folder` with the imitation starter's files (its README with the names filled in, `target`
    being where the folder will be)."""
    try:
        for file_name, source in imitation.files().items():
            if file_name == "README.md":
                text = source.read_text(encoding="utf-8").replace("{bot}", botinfo.site_name(name))
                text = text.replace("{name}", name).replace("{path}", shlex.quote(str(target)))
                site = config.known_server()  # (the login line as the other starters' README has it)
                text = text.replace("{site}", site or UNKNOWN_SITE).replace("{site_note}", "" if site else
                                                                            UNKNOWN_SITE_NOTE)
                (folder / file_name).write_text(text, encoding="utf-8")
            else:
                shutil.copyfile(source, folder / file_name)
        botinfo.record(folder, game, imitation.NAME)
    except OSError as exc:
        raise CliError(f"cannot write into {target}: {exc.strerror or exc}") from exc
