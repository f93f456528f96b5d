"""`armada submit`: upload a bot to the site (creating it if needed) and wait for its validation."""

from __future__ import annotations

import argparse
import io
import sys
import zipfile
from dataclasses import dataclass
from typing import Any, TextIO

from armada.botspec import (
    GAMES,
    MAX_UNCOMPRESSED_BYTES,
    MAX_ZIP_ENTRIES,
    BotSpecError,
    UnpackedTooLarge,
    ZipLimits,
    check_zip,
)
from armada.cli import botinfo, output, polling
from armada.cli.client import ApiClient, RemoteError, Upload, run_remote
from armada.cli.common import CliError
from armada.cli.config import (
    DEFAULT_SERVER,
    default_team,
    own_team,
    require_token,
    save_default_team,
    settings,
)
from armada.cli.packing import SHRINK, bot_upload, largest_files
from armada.logmarks import strip_marks
from armada.sizes import MIB, human_size, with_bytes

EPILOG = f"""\
examples:
  armada submit mybot                                  zip the folder, upload as bot mybot, wait
  armada submit mybot --game galaxy --bot mybot        ... the same, saying the game and name
  armada submit main.py --game galaxy --bot scout --no-wait
  armada submit race.zip --game mothership --bot race --description "balanced fleet"
  armada submit builtin:greedy --bot greedy-test --timeout 120
  armada submit mybot --team "Red Fleet"              the team's bot (remembered: the default from now)

--game defaults to the game the folder's armada.json names (written by `armada new`), else
the one its main.py is written for (the bot library's game module it imports, or the
requests it answers), and another --game than armada.json's is refused; --bot defaults to
the name the folder's armada.json remembers, else the folder's name (main.py: its folder's;
another file or a zip: its name without the suffix); an upload of a folder (or its main.py)
with --bot writes that name into its armada.json ("bot"), the default for that folder from
then on.

PATH takes the BOT forms of `armada play`: a .py file or a .zip (sent as they are), a folder
holding main.py (zipped with main.py at the root, leaving out __pycache__, .git, hidden
files and *.pyc; symbolic links are refused), or builtin:NAME (that starter's file).
Log in first with `armada login` (or set ARMADA_TOKEN); the server is --server, else
$ARMADA_SERVER, else the one you logged in to, else {DEFAULT_SERVER}.

Exit status: 0 valid (or uploaded, with --no-wait), 1 invalid, 2 usage errors, missing or
bad token, refused uploads and network errors, 3 a platform error or a wait that timed out.
"""

#: Bot names the site accepts (3 to 40 characters).
FINAL = ("valid", "invalid", "error")
#: An upload this large or larger shows a progress bar on stderr while it is sent.
PROGRESS_MIN_BYTES = MIB
#: The largest version when the site does not say (its default, ARMADA_UPLOAD_MAX_BYTES).
DEFAULT_UPLOAD_MAX_BYTES = 100 * MIB
LOG_LINES = 20


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "submit", help="upload a bot to the site and wait for its validation",
        description="Upload PATH as a new version of your bot NAME (created if it does not exist yet), "
        "then wait for the site's validation and print the result.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", metavar="PATH", help="the bot: a .py file, a folder, a .zip or builtin:NAME")
    p.add_argument("--game", "-g", choices=GAMES,
                   help="which game the bot plays (default: the one its armada.json or its code names)")
    p.add_argument("--bot", "-b", metavar="NAME",
                   help=f"the bot's name on the site: {botinfo.SITE_NAME_RULE} (default: the folder's name)")
    p.add_argument("--server", metavar="URL", help="the site (default: $ARMADA_SERVER, else the one you logged in to)")
    p.add_argument("--no-wait", action="store_true", help="return once uploaded, without waiting for the validation")
    p.add_argument("--timeout", type=polling.timeout_arg, default=polling.DEFAULT_TIMEOUT_S, metavar="S",
                   help=f"wait at most S seconds for the validation (default: {polling.DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--description", metavar="TEXT", default="", help="the bot's description, when it is created")
    p.add_argument("--team", "-t", metavar="NAME",
                   help="the team whose bot it is (one you are in; remembered as the default; "
                   "default: the last --team given, else your personal team)")
    p.set_defaults(run=run)


@dataclass(frozen=True)
class Target:
    """Where the upload goes: the bot on the site."""

    bot_id: int
    name: str
    game: str
    #: Made by this command: a refused first upload deletes it again (`_forget_new_bot`).
    created: bool = False


def run(args: argparse.Namespace) -> int:
    said = fill_defaults(args)
    upload = bot_upload(args.path, args.game)  # local problems first, before any request
    if said:  # once the path is a bot: a name derived from a model file is not worth saying
        print(f"armada: {said}", file=sys.stderr)
    current = settings(args.server)
    client = ApiClient(current.server, require_token(current))
    return run_remote(lambda: submit(client, upload, args))


def fill_defaults(args: argparse.Namespace) -> str:
    """--game and --bot from the bot itself when not given; what was chosen, to say (empty: nothing);
    CliError when impossible. `args.bot_from` is the PATH the name was taken from (None: given)."""
    said = []
    args.bot_from = None
    if args.game is None:
        args.game, where = botinfo.game_of(args.path)
        said.append(f"game {args.game} (from {where})")
    else:  # a bot made for another game would only fail its validation, in a new bot of the wrong game
        _game, other = botinfo.match_game([args.path], args.game)
        if other is not None:
            raise CliError(f"--game {args.game}, but {other.split(', but ', 1)[1]}: its code would fail the "
                           f"site's validation game; leave --game out, or change armada.json if the bot "
                           f"plays {args.game}")
        try:  # a loose file or a folder without armada.json: the bot library its code imports
            seen, where = botinfo.game_of(args.path)
        except CliError:  # (its code does not say: --game decides)
            seen, where = args.game, ""
        if seen != args.game:
            raise CliError(f"--game {args.game}, but {where} is a {seen} bot (the bot library it imports): its "
                           f"code would fail the site's validation game; leave --game out")
    if args.bot is None:
        name = botinfo.default_name(args.path)
        if not botinfo.SITE_NAME_RE.fullmatch(name):
            raise CliError(f"the bot's name would be {name!r}, its folder's or file's name, which the site does "
                           f"not accept ({botinfo.SITE_NAME_RULE}): pass --bot NAME, e.g. "
                           f"--bot {botinfo.site_name(name)}")
        args.bot = name
        args.bot_from = args.path
        folder = botinfo.name_folder(args.path)
        remembered = folder is not None and botinfo.recorded_name(folder) == name
        said.append(f"bot name {name} (from {botinfo.name_file_shown(args.path) if remembered else args.path})")
    elif not botinfo.SITE_NAME_RE.fullmatch(args.bot):
        raise CliError(f"bad bot name {args.bot!r}: use {botinfo.SITE_NAME_RULE}, e.g. "
                       f"--bot {botinfo.site_name(args.bot)}")
    return ", ".join(said)


def submit(client: ApiClient, upload: Upload, args: argparse.Namespace) -> int:
    """Find or create the bot, upload, wait; returns the exit status."""
    info = client.check_version()
    check_size(upload, args.game, info, client.server)  # before anything is created or sent
    me = client.request("GET", "/api/me/")
    username = me.get("username") if isinstance(me, dict) else None
    if not isinstance(username, str) or not username:
        raise RemoteError(f"GET /api/me/ on {client.server} answered without a username", exit_code=3)
    remembered = None if args.team else default_team()
    try:
        team = _team(me, args.team or remembered, client.server)
    except RemoteError as exc:
        if remembered is None:
            raise
        raise RemoteError(f"{exc}; it is the team remembered from your last --team: pass --team to choose "
                          f"another (--team {username} for your own bots)") from None
    target = _target(client, args, me, team, remembered=remembered is not None)
    if args.team:  # remembered once it chose a bot (a refused --team is not kept)
        save_default_team(f"id:{team['id']}" if team else args.team)  # by id: a rename keeps it
    size = len(upload.data)
    unit_name = "MiB" if size >= 10 * MIB else "KiB"  # "0/2 MiB" says little of 1.3 MiB
    # The bar counts bytes and shows them as the size beside it is shown (_bar_figure): never past it.
    progress = (output.Progress(size, f"{unit_name} of {upload.filename} ({human_size(size)}) sent", stream=sys.stderr,
                                figure=lambda count: _bar_figure(count, size))
                if size >= PROGRESS_MIN_BYTES else None)
    sent = [0]

    def on_sent(count: int) -> None:
        assert progress is not None
        # The body is the file within the form's few hundred bytes of envelope: never past the file's size.
        before, sent[0] = min(sent[0], size), sent[0] + count
        progress.advance(min(sent[0], size) - before)

    if progress is not None:
        progress.start()
    answered = False
    try:
        try:
            version = client.request("POST", f"/api/bots/{target.bot_id}/versions/", upload=upload,
                                     on_sent=on_sent if progress is not None else None)
            answered = True
        finally:  # (also on Ctrl-C: the bar's line ends before anything else is said)
            if progress is not None:
                _finish(progress, complete=answered)
    except RemoteError as exc:
        if exc.exit_code == 2 and exc.status is not None:
            raise RemoteError(f"upload refused: {exc}{_forget_new_bot(client, target)}", status=exc.status) from None
        if exc.status is None or exc.status >= 500:  # the connection failed (a chaos trial: a new bot was
            # left empty, unsaid), or the site (or a proxy in front) failed: the upload may have been stored
            raise RemoteError(f"{exc}; {_interrupted_upload(client, target)}", exit_code=exc.exit_code) from None
        raise
    except KeyboardInterrupt:  # a trial: Ctrl-C while the site stored the upload left a new bot empty, unsaid
        raise RemoteError(f"interrupted; {_interrupted_upload(client, target)}", exit_code=130) from None
    version = _checked_version(version, "POST /api/bots/{id}/versions/")
    print(f"uploaded {upload.filename} ({len(upload.data)} bytes): {target.name} version {version['number']}")
    _remember_name(args)
    if args.no_wait:
        return report(target, version)
    final = wait(client, version, args.timeout, sys.stderr)
    playing = (plays_instead(client, target, final["number"])
               if final.get("status") == "valid" and final.get("active") is False else "")
    return report(target, final, waited=args.timeout, playing=playing)


def _remember_name(args: argparse.Namespace) -> None:
    """After an upload with --bot from a folder of `armada new`: its armada.json remembers the name, so
    the next `armada submit FOLDER` goes to the same bot, not to a new one named as the folder (a trial:
    a retrained imitation bot went to a second bot, which played ranked games beside the first)."""
    folder = botinfo.name_folder(args.path)  # (a main.py's too: its folder's armada.json names its game)
    if args.bot_from is not None or folder is None:
        return
    shown = botinfo.name_file_shown(args.path)
    try:
        written = botinfo.remember_name(folder, args.bot)
    except OSError as exc:  # (a read-only folder: the upload is done all the same)
        print(f"armada: could not remember the bot's name in {shown}: {exc}", file=sys.stderr)
        return
    if written:
        print(f"armada: {shown} remembers the bot's name {args.bot}: `armada submit "
              f"{args.path}` uploads to it from now on (--bot NAME for another)", file=sys.stderr)


def plays_instead(client: ApiClient, target: Target, number: Any) -> str:
    """Which version the bot plays when valid version `number` is not active ("version 3, pinned on
    its page"), from the bot's page of the API; "" when the site does not say."""
    try:
        bot = client.request("GET", f"/api/bots/{target.bot_id}/")
    except RemoteError:
        return ""
    if not isinstance(bot, dict) or not isinstance(bot.get("versions"), list):
        return ""
    active = bot.get("active_version")
    plays = next((v.get("number") for v in bot["versions"] if isinstance(v, dict) and v.get("id") == active), None)
    if active is None or not isinstance(plays, int) or plays == number:
        return ""
    if isinstance(number, int) and plays > number:
        return f"version {plays}, a newer valid one" + (" pinned on its page" if bot.get("pinned") else "")
    return f"version {plays}" + (", pinned on its page" if bot.get("pinned") else "")


def _finish(progress: output.Progress, *, complete: bool) -> None:
    """End the bar's line: full when the site answered (the trailer's last bytes), else where it
    stopped (a chaos trial: a cut connection showed every byte sent)."""
    if complete and progress.done < progress.total:
        progress.advance(progress.total - progress.done)
    progress.finish()


def _take_back(client: ApiClient, target: Target) -> str:
    """Delete the bot this command made for its upload while it has no version (the site decides:
    another upload may have reached it meanwhile): "deleted", "kept" (it has a version) or why not."""
    try:
        client.request("DELETE", f"/api/bots/{target.bot_id}/?if_empty=true")
    except RemoteError as exc:
        return "kept" if exc.status == 409 else f"deleting it failed: {exc}"
    except KeyboardInterrupt:
        return "deleting it was interrupted"
    return "deleted"


def _interrupted_upload(client: ApiClient, target: Target) -> str:
    """What became of an upload interrupted before the site answered: a bot made for it and still
    empty is deleted again; otherwise the upload may have been stored all the same."""
    page = f"its page, {client.url(f'/bots/{target.bot_id}/')}"
    if not target.created:
        return f"the upload may have reached the site all the same: see {page}, before sending it again"
    outcome = _take_back(client, target)
    said = {"deleted": f"the upload did not reach the site, and bot {target.name} made for it was deleted again",
            "kept": f"the upload reached the site all the same: bot {target.name} has it (see {page})"}
    return said.get(outcome, f"bot {target.name}, made for the upload, may be left without a version: see {page}")


def _forget_new_bot(client: ApiClient, target: Target) -> str:
    """Delete the bot this command created for an upload the site refused (so no empty bot keeps its
    name and a place among the team's bots); what to add to the refusal's message."""
    if not target.created:
        return ""
    outcome = _take_back(client, target)
    said = {"deleted": f"; the bot {target.name} made for it was deleted again",
            "kept": f"; the bot {target.name} made for it is kept: another upload reached it meanwhile"}
    return said.get(outcome, f"; the bot {target.name} made for it is left without a version ({outcome})")


def upload_limit(info: dict[str, Any], game: str) -> int:
    """The largest version `game` takes on the site (its /api/version/ answer), else the default."""
    return _site_number(info, "upload_max_bytes", game, DEFAULT_UPLOAD_MAX_BYTES)


def check_size(upload: Upload, game: str, info: dict[str, Any], server: str) -> None:
    """Refuse, before sending, an upload past the game's limit: the sizes, the limit, how to shrink it."""
    limit = upload_limit(info, game)
    size = len(upload.data)
    if size > limit:
        largest = ", ".join(f"{name} ({human_size(taken)})" for name, taken in largest_files(upload.data))
        raise CliError(f"{upload.filename} is {with_bytes(size)} and {game} on {server} takes "
                       f"versions of at most {with_bytes(limit)}; nothing was sent"
                       + (f"; its largest files: {largest}" if largest else "") + ". To fit, "
                       f"{SHRINK}: see {server}/docs/bots-environment/#model-files")
    check_archive(upload, game, info, server)


def _site_number(info: dict[str, Any], key: str, game: str | None, default: int) -> int:
    """A limit the site's /api/version/ states (by game when `game`), else the SDK's default."""
    value = info.get(key)
    if game is not None:
        value = value.get(game) if isinstance(value, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def check_archive(upload: Upload, game: str, info: dict[str, Any], server: str) -> None:
    """Refuse, before anything is created or sent, a zip the site's checks would refuse: its entries
    and unpacked size against the site's limits for the game, its compression ratio."""
    if upload.content_type != "application/zip":
        return
    limits = ZipLimits(max_zip_bytes=upload_limit(info, game),
                       max_entries=_site_number(info, "upload_max_files", None, MAX_ZIP_ENTRIES),
                       max_uncompressed_bytes=_site_number(info, "upload_max_unpacked_bytes", game,
                                                           MAX_UNCOMPRESSED_BYTES))
    try:
        with zipfile.ZipFile(io.BytesIO(upload.data)) as archive:
            check_zip(archive, len(upload.data), limits)
    except UnpackedTooLarge as exc:
        raise CliError(f"{upload.filename}: {exc}; nothing was sent ({game} on {server}). To fit, {SHRINK}: "
                       f"see {server}/docs/bots-environment/#model-files") from None
    except BotSpecError as exc:
        raise CliError(f"{upload.filename}: {exc}; nothing was sent ({game} on {server})") from None
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # (not a zip after all: the site says what it is)


def _bar_figure(count: int, size: int) -> str:
    """COUNT bytes of a SIZE-byte upload as its progress bar shows them: tenths of MiB from 10 MiB up,
    else KiB. The whole file is rounded as _size rounds it, so "30.0/30.0 MiB" stands beside
    "(30.0 MiB)"; a part is rounded down, so the bar never counts past the file or ends early."""
    whole = count >= size
    if size >= 10 * MIB:
        return f"{size / MIB:.1f}" if whole else f"{count * 10 // MIB / 10:.1f}"
    return str(-(-size // 1024) if whole else count // 1024)


def _target(client: ApiClient, args: argparse.Namespace, me: dict[str, Any], team: dict[str, Any] | None, *,
            remembered: bool) -> Target:
    """The bot the upload goes to: the existing bot of that name (`existing_target`), else one made
    now for `team` (a shared one) or your personal team."""
    existing = find_named_bot(client, args.game, args.bot)
    named_from = getattr(args, "bot_from", None)
    shared = team if team is not None and not team.get("personal") else None
    held = existing.get("team") if existing is not None else None
    if remembered and shared is not None and (existing is None or (
            isinstance(held, dict) and held.get("id") == shared.get("id"))):
        # said: a new bot of a shared team never moves out of it
        print(f"armada: team {shared['name']} (remembered from your last --team; --team {me.get('username')} for "
              "your own bots)", file=sys.stderr)
    if existing is not None:
        return existing_target(existing, me, team, explicit=bool(args.team), named_from=named_from)
    elsewhere = _same_name_elsewhere(client, args.game, args.bot, me)
    if shared is None:
        made = create_bot(client, args.game, args.bot, args.description, shared_teams=_shared_names(me),
                          named_from=named_from)
    else:
        made = create_bot(client, args.game, args.bot, args.description, team_id=int(shared["id"]),
                          team_name=str(shared["name"]), named_from=named_from)
    if elsewhere:
        print(f"armada: note: your bot {args.bot} is a {' and a '.join(elsewhere)} bot; this one is a {args.game} "
              f"bot, so it is a new bot {args.bot} (a name is per game)", file=sys.stderr)
    return made


def _same_name_elsewhere(client: ApiClient, game: str, name: str, me: dict[str, Any]) -> list[str]:
    """The other games in which a bot of yours (not retired) has this name: a name is per game, so
    the upload makes a new bot, which is then said (a trial: `--bot cdraw` from a Mothership folder
    meant the Galaxy cdraw). Only a note: a failed lookup leaves it unsaid, never the upload."""
    username = me.get("username") if isinstance(me, dict) else None
    if not isinstance(username, str) or not username:
        return []
    try:
        bots = list(client.pages("/api/bots/", {"owner": username, "name": name}))
    except CliError:  # (RemoteError: the site down, throttled, an odd answer)
        return []
    return sorted({str(bot.get("game")) for bot in bots
                   if isinstance(bot, dict) and bot.get("game") != game and not bot.get("retired")
                   and str(bot.get("name", "")).lower() == name.lower()
                   and str(bot.get("owner", "")).lower() == username.lower()})


def find_named_bot(client: ApiClient, game: str, name: str) -> dict[str, Any] | None:
    """The site's bot of that game and name, whoever's (names are unique per game whatever the case:
    `RACE` is the bot `race`, not a new bot), as the bot list gives it; None when there is none."""
    for bot in client.pages("/api/bots/", {"game": game, "name": name}):
        if isinstance(bot, dict) and str(bot.get("name", "")).lower() == name.lower() and bot.get("game", game) == game:
            if not isinstance(bot.get("id"), int) or isinstance(bot.get("id"), bool):
                raise RemoteError(f"GET /api/bots/ on {client.server} listed the bot {name} without its id",
                                  exit_code=3)
            return dict(bot)
    return None


def _id_of(row: Any) -> int | str | None:
    """A row's "id" when it is one (a number or text), else None: an odd answer never raises here."""
    value = row.get("id") if isinstance(row, dict) else None
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def existing_target(bot: dict[str, Any], me: Any, team: dict[str, Any] | None, *, explicit: bool,
                    named_from: str | None = None) -> Target:
    """Where an upload to an existing bot goes: the bot itself when it is one of your teams' (a
    remembered --team does not stop an upload to your own bot of another team: it is said on
    stderr); RemoteError when --team names another of your teams, or the bot is no team's of yours."""
    name, target = str(bot.get("name")), Target(int(bot["id"]), str(bot.get("name")), str(bot.get("game")))
    held = bot.get("team") if isinstance(bot.get("team"), dict) else None
    username = me.get("username") if isinstance(me, dict) else None
    if held is None:  # an older site without teams: your own bot (its owner your name or id), or another's
        owner = bot.get("owner")
        if isinstance(owner, dict):
            owner = owner.get("username")
        me_id = me.get("id") if isinstance(me, dict) else None
        if (isinstance(owner, str) and owner == username) or (
                isinstance(owner, int) and not isinstance(owner, bool) and owner == me_id):
            return target
        raise RemoteError(f"the bot {name} is another user's: pass --bot NAME for a bot of your own")
    teams = me.get("teams") if isinstance(me, dict) else None
    mine = {_id_of(t): t for t in teams if _id_of(t) is not None} if isinstance(teams, list) else {}
    held_id = _id_of(held)
    if team is not None and held_id is not None and held_id == _id_of(team):
        return target
    if held_id is None or held_id not in mine:
        came = f" (the name came from {named_from})" if named_from else ""
        raise RemoteError(f"the bot {name} is team {held.get('name', '?')}'s, a team you are not in{came}: pass "
                          f"--bot NAME for a bot of your own")
    shown = "your own bots" if mine[held_id].get("personal") else f"your team {held.get('name')}'s bots"
    chosen = "your own bots" if team is not None and team.get("personal") else f"team {(team or {}).get('name')}'s"
    if explicit and team is not None:
        raise RemoteError(f"the bot {name} is one of {shown}, not {chosen}: pass --team {held.get('name')!r} (or "
                          f"leave --team out) to upload to it, or --bot NAME for a new bot")
    if team is not None:
        print(f"armada: the bot {name} is one of {shown}, not {chosen} (remembered from your last --team): "
              f"uploading to it", file=sys.stderr)
    return target


def _team(me: Any, name: str | None, server: str) -> dict[str, Any] | None:
    """The team of yours named `name`, or `id:N` as the remembered default is stored (from GET
    /api/me/'s teams); your username, any case, is your personal team whatever its name (a
    personal team is named `alice-2` when a team had the name first, D-S-7, and a shared team
    named `Alice` must not take your bot); None for none given or an older site without teams;
    RemoteError when you are in no such team."""
    teams = me.get("teams") if isinstance(me, dict) else None
    if not name or not isinstance(teams, list):
        return None
    found = own_team(teams, name, me.get("username"))
    if found is not None:
        return found
    shown = f"with id {name[3:]}" if name.startswith("id:") else f"named {name!r}"
    raise RemoteError(f"you are in no team {shown} on {server} (`armada team show` lists yours)")


def create_bot(client: ApiClient, game: str, name: str, description: str, team_id: int | None = None,
               team_name: str = "", shared_teams: list[str] | None = None, named_from: str | None = None) -> Target:
    """Create the bot on the site (for `team_id`, else the personal team); its refusal (name taken,
    too many bots) is one line, exit 2, which names your teams when the name may be one of theirs, and says
    to pass --bot when the name was taken from the bot's PATH (`named_from`), not chosen."""
    body: dict[str, Any] = {"name": name, "game": game, "description": description}
    if team_id is not None:
        body["team"] = team_id
    try:
        bot = client.request("POST", "/api/bots/", json_body=body)
    except RemoteError as exc:
        if exc.exit_code == 2 and exc.status is not None:
            taken = exc.status == 409 and "taken" in str(exc)
            hint = (f" (a bot of your team: --team {' or --team '.join(repr(t) for t in shared_teams)})"
                    if shared_teams and taken else "")
            if named_from and taken:
                hint += f": the name came from {named_from}; pass --bot NAME for another"
            raise RemoteError(f"cannot create bot {name}: {exc}{hint}", status=exc.status) from None
        raise
    if not isinstance(bot, dict) or not isinstance(bot.get("id"), int):
        raise RemoteError(f"POST /api/bots/ on {client.server} answered without the bot's id", exit_code=3)
    print(f"created bot {name} ({game})" + (f" in team {team_name}" if team_name else ""))
    return Target(bot["id"], name, game, created=True)


def _shared_names(me: Any) -> list[str]:
    """The names of the shared teams you are in (GET /api/me/'s teams)."""
    teams = me.get("teams") if isinstance(me, dict) else None
    return [str(t["name"]) for t in teams or [] if isinstance(t, dict) and not t.get("personal") and t.get("name")]


def _checked_version(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("id"), int) or "status" not in data:
        raise RemoteError(f"{what} answered {str(data)[:80]!r}, not a version", exit_code=3)
    data.setdefault("number", "?")
    return data


def wait(client: ApiClient, version: dict[str, Any], timeout_s: float, stream: TextIO) -> dict[str, Any]:
    """Poll the version until its status is final or `timeout_s` passed; returns the last answer."""
    path = f"/api/versions/{version['id']}/"
    label = f"version {version['number']}"
    waiting = polling.Waiting(label, f"{label} ({version.get('url') or client.url(path)})", "uploaded as",
                              "is uploaded and its validation goes on")
    return polling.poll(client, path, version, FINAL, timeout_s, stream, waiting,
                        lambda fresh: _checked_version(fresh, f"GET {path}"))


#: Said after an invalid version's reason: what plays meanwhile.
INVALID_KEEPS = "it will not play: the bot's active version, if it has one, plays on as before"


def report(target: Target, version: dict[str, Any], waited: float | None = None, *, playing: str = "") -> int:
    """Print the version's outcome on stdout (and a one-line error on stderr); returns the exit status.
    `playing`: the version the bot plays instead of a valid one that is not active (`plays_instead`)."""
    status = str(version["status"])
    detail = " ".join(str(version.get("detail") or "").split())
    head = f"{target.name} version {version['number']}"
    url = version.get("url") or ""
    code = 0
    if status == "valid":
        print(f"{head}: valid" + (f" ({detail})" if detail else ""))
        if version.get("active") is False:  # (as the version's page says it: games would not come)
            instead = playing or "another version (an earlier one pinned on its page, or a newer valid one)"
            print(f"not active: the bot plays {instead}; make this one active on its page")
    elif status == "invalid":
        print(f"{head}: invalid: {detail.removeprefix('invalid: ') or 'no reason given'}")
        log = str(version.get("log") or "")
        if log.strip():
            print(f"bot log (last {LOG_LINES} lines):")
            print(output.indent(output.tail(strip_marks(log), LOG_LINES)))
        print(INVALID_KEEPS)
        code = 1
    elif status == "error":
        print(f"{head}: error: {detail or 'no reason given'} (a platform failure, not your bot's fault)")
        print(f"armada: error: the site could not validate {head}: {detail or 'platform failure'}; "
              "its retries are spent: submit it again (the same code is taken), or ask staff to validate it again",
              file=sys.stderr)
        code = 3
    elif waited is not None:
        print(f"{head}: still {status} after {waited:g} s")
        print(f"armada: error: gave up waiting after {waited:g} s (status: {status}); "
              f"the result will appear at {url or 'the bot page'}", file=sys.stderr)
        code = 3
    else:
        print(f"{head}: {status}")
    used = _used(version.get("resources"))
    if used:
        print(f"used: {used}")
    if url:
        print(f"url: {url}")
    return code


def _used(resources: Any) -> str:
    """What the validation used against the budgets, as the version's page says it ("" when not known)."""
    if not isinstance(resources, dict) or not resources.get("init_budget_ms"):
        return ""

    def value(key: str, unit: str, missing: str) -> str:
        number = resources.get(key)
        return f"{number} {unit}" if isinstance(number, int) else missing

    budget = resources["init_budget_ms"]  # no init time: it stopped (or crashed) before answering, not "too slow"
    init = (f"init {resources['init_ms']} ms of its {budget} ms budget" if isinstance(resources.get("init_ms"), int)
            else f"init not answered (its budget: {budget} ms)")
    return (f"{init}, "
            f"memory peak {value('memory_peak_mib', 'MiB', 'not measured')} of its "
            f"{resources.get('memory_limit_mib')} MiB limit")
