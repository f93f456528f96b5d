"""A seat's requests in a finished match, and the command that re-runs them (`armada replay --rerun`).

Both are private to the seat's bot's owner and staff, like its log: the requests show what the
seat saw (its fog), and the command carries its ARMADA_BOT_SEED. For anyone else the match does
not exist (`NotFound`, the same answer as for a missing match). The requests are rebuilt from
the stored replay by the SDK (`armada.referee.rerun`), the same code `--rerun` runs.
"""

from __future__ import annotations

import zlib
from typing import Any

from django.core.cache import cache

from armada.referee.environment import bot_seed, seed_key
from armada.referee.rerun import requests_jsonl
from armada.replay import ReplayError
from armada_web.bots.access import can_see_private
from armada_web.matches.access import can_see
from armada_web.matches.models import Match, Participant
from armada_web.matches.queries import matches, replay_of
from armada_web.web.errors import Conflict, NotFound

#: How long a seat's rebuilt requests are kept in the cache.
KEEP_REQUESTS_S = 600


def no_match(seat: int) -> str:
    """The answer to a missing match and to a match or seat the user may not see (never different): a match
    anyone can watch names why its seat's drawings and requests are not given, and a private one stays unknown."""
    return f"no such match, or its seat {seat} is not yours (its drawings and requests are its bot's team's)"


def private_seat(*, user: Any, match_id: int, seat: int) -> tuple[Match, Participant]:
    """The match and its seat when `user` may see the match (`matches.access`: a private event's is
    its members') and owns the seat's bot (or is staff); NotFound otherwise. Both are asked: a bot
    entered from its personal team and moved to a shared team afterwards makes that team's members
    its owners, not members of the event it played."""
    match = matches().filter(pk=match_id).first()
    participant = next((p for p in match.participants.all() if p.seat == seat), None) if match else None
    if match is None or participant is None or participant.version is None:
        raise NotFound(no_match(seat))
    if not (can_see_private(user=user, bot=participant.version.bot) and can_see(user=user, match=match)):
        raise NotFound(no_match(seat))
    return match, participant


def seat_requests(*, user: Any, match_id: int, seat: int) -> str:
    """The requests seat `seat` received in match `match_id`, one JSON line each as the referee wrote
    them; NotFound as for a missing match unless `user` may see the seat, Conflict when the stored
    replay cannot be rebuilt (no replay yet, or one this engine no longer plays)."""
    match, _participant = private_seat(user=user, match_id=match_id, seat=seat)
    # Rebuilding replays the whole game (about a second of CPU for a 200-turn Galaxy match): kept a
    # while, by the replay's checksum (recorded with it; a match played again has another), compressed.
    key = f"seat-requests:{match.pk}:{seat}:{match.replay_sha256}" if match.has_replay and match.replay_sha256 else ""
    kept = cache.get(key) if key else None
    if kept is not None:
        return zlib.decompress(kept).decode("utf-8")
    replay = replay_of(match)
    if replay is None:
        raise Conflict("this match has no replay (it has not finished)")
    try:
        text = requests_jsonl(replay, seat)
    except ReplayError as exc:
        raise Conflict(f"this match's requests cannot be rebuilt: {exc}") from None
    if key:
        cache.set(key, zlib.compress(text.encode("utf-8"), 6), KEEP_REQUESTS_S)
    return text


def rerun_command(*, match: Match, seat: int, bot_name: str = "") -> str:
    """`armada replay match-ID.json.gz --rerun SEAT BOT/ --bot-seed N`: what the owner runs at home."""
    return replay_rerun_command(replay_file=f"match-{match.pk}.json.gz", game_seed=match.seed, seat=seat,
                                bot_name=bot_name)


def replay_rerun_command(*, replay_file: str, game_seed: int, seat: int, bot_name: str = "") -> str:
    """The command that re-runs seat `seat` of the game played with `game_seed` (a match's or a validation
    game's, whose bots got their ARMADA_BOT_SEED from it under this site's key) from its replay `replay_file`,
    with the bot's folder named as the bot (as `armada new` and `armada submit` name it; mybot/ without a name)."""
    seed = bot_seed(game_seed, seat, seed_key())
    file, folder = (f"./{name}" if name.startswith("-") else name  # (a bot's name may start with "-":
                    for name in (replay_file, f"{bot_name or 'mybot'}/"))  # not an option to the command)
    return f"armada replay {file} --rerun {seat} {folder} --bot-seed {seed}"
