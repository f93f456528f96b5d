"""What a bot folder says about itself: the game it plays (recorded by `armada new`) and its name.

`armada new` writes `armada.json` (`{"game": ..., "starter": ...}`) into the folder, so
`armada submit FOLDER` needs neither `--game` nor `--bot`: the game comes from that file and
the name from the folder's (or the one an upload with `--bot` wrote there as "bot"). A folder
without the file (made before it existed, or by hand) has its game read from its main.py: the
bot library's game module it imports (`armada.bot.galaxy`, `armada.bot.mothership`) or, for a
bot written on the raw protocol, the request types it answers ("scout"/"command" or "orders");
when that is not clear the caller is told to pass --game.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from armada.botspec import BUILTIN_PREFIX, ENTRY, GAMES, BotSpecError, builtin_names, resolve_bot
from armada.cli.common import CliError

INFO_FILE = "armada.json"
#: Signs in a bot's source that it plays one game: a bot library import, or the requests it answers.
_SIGNS = {
    "galaxy": re.compile(r"\barmada\.bot\.galaxy\b|\bGalaxyBot\b|[\"'](?:scout|command)[\"']"),
    "mothership": re.compile(r"\barmada\.bot\.mothership\b|\bMothershipBot\b|[\"']orders[\"']"),
}
_ASK = "pass --game galaxy or --game mothership"


def record(folder: Path, game: str, starter: str) -> Path:
    """Write FOLDER/armada.json saying which game the bot plays and which starter it came from."""
    path = folder / INFO_FILE
    path.write_text(info_text({"game": game, "starter": starter}), encoding="utf-8")
    return path


def info_text(info: dict[str, object]) -> str:
    """armada.json's text for `info`, as `armada new` writes it (and the CLI writes it again)."""
    return json.dumps(info, indent=2) + "\n"


def recorded_game(folder: Path, shown: str | None = None) -> str | None:
    """The game FOLDER/armada.json names, None without the file; CliError for a damaged one, naming
    the file `shown` (default: its path; a zip's member for a zip's temporary copy)."""
    path = folder / INFO_FILE
    if not path.is_file():
        return None
    shown = shown or str(path)
    try:
        data = _read(folder)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CliError(f"{shown}: cannot read it ({exc}); fix or remove it, or {_ASK}") from exc
    game = data.get("game") if isinstance(data, dict) else None
    if game not in GAMES:
        raise CliError(f"{shown}: \"game\" must be one of {', '.join(GAMES)} (got {game!r}); fix it, or {_ASK}")
    return str(game)


def _read(folder: Path) -> object:
    """FOLDER/armada.json's JSON value (OSError, UnicodeDecodeError or JSONDecodeError when it cannot)."""
    return _loads((folder / INFO_FILE).read_text(encoding="utf-8"))


def _loads(text: str) -> object:
    """`text`'s JSON value; JSONDecodeError too for one nested past the parser's depth (`[[[...`,
    a RecursionError and a traceback else)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None


def _info(folder: Path) -> dict[str, object] | None:
    """FOLDER/armada.json's object, None without the file or when it is not a readable object."""
    try:
        data = _read(folder)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def recorded_name(folder: Path) -> str | None:
    """The bot's name on the site that FOLDER/armada.json remembers ("bot"), None when it names none
    (or one the site would not take)."""
    name = (_info(folder) or {}).get("bot")
    return name if isinstance(name, str) and SITE_NAME_RE.fullmatch(name) else None


def remember_name(folder: Path, name: str) -> bool:
    """Write `name` into FOLDER/armada.json as the bot's name on the site ("bot"), so the next
    `armada submit FOLDER` goes to the same bot; only a folder whose armada.json is readable (`armada
    new` wrote it), and only when it names another. True when it was written."""
    data = _info(folder)
    if data is None or data.get("bot") == name or (data.get("bot") is None and folder.resolve().name == name):
        return False
    data["bot"] = name
    (folder / INFO_FILE).write_text(info_text(data), encoding="utf-8")
    return True


def named_game(data: bytes) -> str | None:
    """The game an armada.json's bytes name (one of GAMES); None when they name none or cannot be
    read (the site's upload check: such a file is the validation game's to judge)."""
    try:
        info = _loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    game = info.get("game") if isinstance(info, dict) else None
    return game if isinstance(game, str) and game in GAMES else None


def as_sent(data: bytes) -> bytes:
    """armada.json's bytes as an upload carries them: without the name `remember_name` wrote (the
    CLI's own note), so remembering it never makes the next upload of unchanged code a new version."""
    try:
        info = _loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return data
    if not isinstance(info, dict) or "bot" not in info:
        return data
    del info["bot"]
    return info_text(info).encode("utf-8")


def game_in_source(text: str) -> str | None:
    """The one game whose signs the source shows, else None (neither, or both)."""
    found = [game for game, sign in _SIGNS.items() if sign.search(text)]
    return found[0] if len(found) == 1 else None


def game_of(spec: str) -> tuple[str, str]:
    """(game, where it was read) for BOT `spec`; CliError saying to pass --game when it cannot tell."""
    if spec.startswith(BUILTIN_PREFIX):
        name = spec[len(BUILTIN_PREFIX):]
        games = [game for game in GAMES if name in builtin_names(game)]
        if len(games) == 1:
            return games[0], f"the only game with starter {name!r}"
        raise CliError(f"{spec}: a starter of {' and '.join(games) or 'no game'}: {_ASK}")
    try:
        source = resolve_bot(spec, GAMES[0])  # only builtin: specs depend on the game
    except BotSpecError as exc:
        raise CliError(str(exc)) from exc
    with source:
        folder = Path(source.code_dir)
        game = recorded_game(folder, source.shown_path(INFO_FILE))
        if game is not None:
            return game, _info_shown(spec)
        try:
            text = (folder / source.entry).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise CliError(f"cannot read {folder / source.entry}: {exc.strerror or exc}") from exc
    game = game_in_source(text)
    if game is None:
        raise CliError(f"cannot tell which game {spec} plays (no {INFO_FILE} beside its {ENTRY}, and its code "
                       f"does not show one clearly): {_ASK}")
    return game, f"its {source.entry}"


def recorded_game_of(spec: str) -> tuple[str, str] | None:
    """(game, where it was read) from the armada.json of BOT `spec`; None for a starter, a bot
    without the file, or a spec that does not resolve (its own error comes when it is played)."""
    if spec.startswith(BUILTIN_PREFIX):
        return None
    try:
        source = resolve_bot(spec, GAMES[0])  # only builtin: specs depend on the game
    except BotSpecError:
        return None
    with source:
        game = recorded_game(Path(source.code_dir), source.shown_path(INFO_FILE))
    return None if game is None else (game, _info_shown(spec))


def match_game(specs: list[str], given: str | None) -> tuple[str, str | None]:
    """The game BOTS `specs` play together (`armada play`, `armada tournament`) and a note to print.

    An explicit --game (`given`) wins; the note then names the armada.json files that say
    otherwise. Without it the game is the one the bots' armada.json files name, galaxy when
    none has one; files naming different games are a CliError naming both.
    """
    found: dict[str, list[str]] = {}
    for spec in dict.fromkeys(specs):
        try:
            recorded = recorded_game_of(spec)
        except CliError:
            if given is None:
                raise
            continue  # a damaged armada.json does not matter when --game says the game
        if recorded is not None:
            found.setdefault(recorded[0], []).append(recorded[1])
    if given is not None:
        others = [f"{where} names {game}" for game, places in found.items() if game != given for where in places]
        return given, (f"playing {given} as --game says, but {', '.join(others)}" if others else None)
    if len(found) > 1:
        named = " but ".join(f"{', '.join(places)} {'names' if len(places) == 1 else 'name'} {game}"
                             for game, places in found.items())
        raise CliError(f"the bots play different games: {named}; {_ASK}")
    return (next(iter(found)) if found else GAMES[0]), None


def _info_shown(spec: str) -> str:
    """Where the armada.json of BOT `spec` is, as the user would name it."""
    path = Path(spec)
    if path.is_dir():
        return str(path / INFO_FILE)
    if path.suffix.lower() == ".zip":
        return f"the {INFO_FILE} in {spec}"
    return str(path.parent / INFO_FILE)


def name_folder(spec: str) -> Path | None:
    """The folder whose armada.json remembers BOT `spec`'s name on the site (`remember_name`): a
    folder's own, a main.py's folder's (the file that names its game too); None for another file,
    a zip or a starter."""
    if spec.startswith(BUILTIN_PREFIX):
        return None
    path = Path(spec).expanduser().resolve()
    if path.is_dir():
        return path
    if path.name == ENTRY and path.parent.name:
        return path.parent
    return None


def name_file_shown(spec: str) -> str:
    """The armada.json that remembers BOT `spec`'s name, as the user would name it (`name_folder`)."""
    path = Path(spec).expanduser()
    return str((path if path.is_dir() else path.parent) / INFO_FILE)


def default_name(spec: str) -> str:
    """The bot's name on the site when --bot is not given: the one the folder's armada.json
    remembers (`remember_name`; a main.py's folder's too), else the folder's name (or the
    file's, the zip's)."""
    if spec.startswith(BUILTIN_PREFIX):
        raise CliError(f"{spec}: give the bot's name on the site with --bot NAME")
    folder = name_folder(spec)
    if folder is not None:
        return recorded_name(folder) or folder.name
    return Path(spec).expanduser().resolve().stem


#: A bot's name on the site (the site's own rule; `armada submit --bot` and `armada challenge`).
SITE_NAME_RE = re.compile(r"(?![0-9]+$)[A-Za-z0-9_-]{3,40}")  # the site's bots.logic.names.NAME_RE
SITE_NAME_RULE = "3 to 40 ASCII letters (a-z, A-Z), digits, '-' or '_', not digits alone"


def site_name(name: str) -> str:
    """`name` when the site takes it as a bot name (`SITE_NAME_RULE`), else one it takes:
    other characters become `_`, cut to 40, `-bot` added when shorter than 3 or digits alone."""
    if SITE_NAME_RE.fullmatch(name):
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:40]
    if cleaned.isdigit():  # digits alone read as a bot's id
        return f"{cleaned[:36]}-bot"
    return cleaned if len(cleaned) >= 3 else f"{cleaned}-bot"
