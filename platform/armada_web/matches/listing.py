"""The match list with its filters, newest first, paged by keyset cursor (`/matches/`, `/api/matches/`).

Filters: `game`, `kind`, `status` (the match's), `bot` (id or name: the matches one of its versions
sat in), and with `bot`: `opponent` (id or name), `version` (the bot's version number) and `result`
(the bot's: win, draw, loss). A page is found through one index range whatever the list's
length: a bot's matches through its seats (`seat_bot_newest`, `seat_pairing_newest`,
`seat_version_newest`), other lists through the match table's (`match_*_newest`, the primary
key). A cursor is `o<id>` (the matches older than match id) or `n<id>` (newer); a page holds its
neighbours' cursors. Anything malformed is refused with `Invalid` naming the parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.db.models.functions import Lower

from armada_web.bots.models import Bot, BotVersion, Game
from armada_web.matches.access import visible
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant, Result
from armada_web.matches.queries import matches
from armada_web.web.errors import Invalid, NotFound
from armada_web.web.inputs import MAX_ID, parse_text

PAGE = 50
MAX_PAGE = 200
#: How deep page numbers (`?page=N`, kept for old API clients) may go; deeper lists need the cursor.
MAX_OFFSET = 10_000
#: A cursor: `o<id>` or `n<id>` (an id past the largest is a position past every match).
CURSOR_PATTERN = r"([on])([1-9][0-9]{0,18})"
_CURSOR = re.compile(CURSOR_PATTERN)
#: A version filter: the bot's version number, `3` or `v3`.
VERSION_PATTERN = r"v?([1-9][0-9]{0,8})"
_VERSION = re.compile(VERSION_PATTERN)
FILTERS = ("game", "bot", "opponent", "version", "kind", "result", "status")


@dataclass(frozen=True)
class Filters:
    """A match list's filters, checked (`filters()` builds them from a request's values)."""

    game: str = ""
    bot: Bot | None = None
    opponent: Bot | None = None
    version: BotVersion | None = None
    kind: str = ""
    result: str = ""
    status: str = ""

    def query(self) -> dict[str, str]:
        """The filters as query parameters (ids for bots), for links to other pages of the list."""
        values = {"game": self.game, "bot": str(self.bot.pk) if self.bot else "",
                  "opponent": str(self.opponent.pk) if self.opponent else "",
                  "version": str(self.version.number) if self.version else "", "kind": self.kind,
                  "result": self.result, "status": self.status}
        return {key: value for key, value in values.items() if value}


@dataclass
class Page:
    """One page of the list, newest first, and the cursors of the pages beside it (None: none)."""

    matches: list[Match]
    newer: str | None
    older: str | None


def _choice(name: str, value: Any, choices: list[str]) -> str:
    text = "" if value is None else str(value).strip()
    if text and text not in choices:
        raise Invalid(f"{name} must be one of {', '.join(choices)}; got {text[:40]!r}")
    return text


def _bot(name: str, value: Any, game: str) -> Bot | None:
    """A bot by id, or by name (any case; `game` tells two bots of one name apart)."""
    text = parse_text("" if value is None else str(value), what=name, max_length=60).strip()  # no NUL
    if not text:
        return None
    if text.isascii() and text.isdigit():
        bot = Bot.objects.filter(pk=int(text)).first() if int(text) <= MAX_ID else None
        if bot is None:
            shown = text if len(text) <= 20 else f"{text[:20]}... ({len(text)} digits)"
            raise Invalid(f"{name}: no bot has id {shown}")
        return bot
    named = Bot.objects.annotate(lname=Lower("name")).filter(lname=text.lower())
    found = list((named.filter(game=game) if game else named)[:2])
    if not found:
        raise Invalid(f"{name}: no bot is named {text[:40]!r}{' in ' + game if game else ''}")
    if len(found) > 1:
        raise Invalid(f"{name}: bots of several games are named {text[:40]!r}; give the game too, or the bot's id")
    return found[0]


def filters(*, game: Any = None, bot: Any = None, opponent: Any = None, version: Any = None, kind: Any = None,
            result: Any = None, status: Any = None) -> Filters:
    """The list's filters from raw request values (strings or None); Invalid naming the bad one."""
    game_ = _choice("game", game, list(Game.values))
    the_bot = _bot("bot", bot, game_)
    result_ = _choice("result", result, list(Result.values))
    number = "" if version is None else str(version).strip()
    wanted_opponent = opponent is not None and str(opponent).strip() != ""
    if (wanted_opponent or result_ or number) and the_bot is None:  # before the opponent is looked up
        raise Invalid("opponent, version and result describe a bot's matches: give bot too")
    the_opponent = _bot("opponent", opponent, game_)
    the_version = None
    if number:
        found = _VERSION.fullmatch(number)
        if found is None:
            raise Invalid(f"version must be the bot's version number (1, 2, ...); got {str(version)[:20]!r}")
        the_version = BotVersion.objects.filter(bot=the_bot, number=int(found.group(1))).first()
        if the_version is None:
            raise Invalid(f"version: {the_bot.name} has no version {int(found.group(1))}")  # type: ignore[union-attr]
    return Filters(game_, the_bot, the_opponent, the_version, _choice("kind", kind, list(MatchKind.values)),
                   result_, _choice("status", status, list(MatchStatus.values)))


def parse_cursor(value: Any) -> tuple[str, int] | None:
    """("o" | "n", match id) from a cursor; None for none; Invalid for a garbled one."""
    text = "" if value is None else str(value).strip()
    if not text:
        return None
    found = _CURSOR.fullmatch(text)
    if found is None:
        raise Invalid("cursor: not one of this list's cursors; follow the list's next and previous links")
    return found.group(1), min(int(found.group(2)), MAX_ID)  # past every id: the database's bigint holds it


def page_size(value: Any, default: int = PAGE) -> int:
    text = "" if value is None else str(value).strip()
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 4 or not 1 <= int(text) <= MAX_PAGE:
        raise Invalid(f"page_size must be a whole number from 1 to {MAX_PAGE}")
    return int(text)


def _ids(chosen: Filters, viewer: Any = None) -> tuple[QuerySet[Any], str]:
    """The ids of the list's matches that `viewer` may see (`matches.access`; None: an anonymous
    visitor), unordered, and the name of their id column."""
    if chosen.bot is None:
        rows: QuerySet[Any] = Match.objects.all()
        for key in ("game", "kind", "status"):
            if getattr(chosen, key):
                rows = rows.filter(**{key: getattr(chosen, key)})
        return visible(rows, user=viewer).values_list("id", flat=True), "id"
    seats = Participant.objects.filter(bot=chosen.bot)
    if chosen.opponent is not None:
        seats = seats.filter(opponent=chosen.opponent)
    if chosen.version is not None:
        seats = seats.filter(version=chosen.version)
    if chosen.result:
        seats = seats.filter(result=chosen.result)
    for key in ("game", "kind", "status"):
        if getattr(chosen, key):
            seats = seats.filter(**{f"match__{key}": getattr(chosen, key)})
    return visible(seats, user=viewer, column="match_id").values_list("match_id", flat=True), "match_id"


def _load(ids: list[int]) -> list[Match]:
    found = {m.pk: m for m in matches().filter(pk__in=ids)}
    return [found[i] for i in ids if i in found]


def page(*, chosen: Filters, cursor: str | None = None, size: int = PAGE, viewer: Any = None) -> Page:
    """The page of the list at `cursor` (None: the newest), `size` matches, as `viewer` may see it
    (None: an anonymous visitor; `matches.access`)."""
    position = parse_cursor(cursor)
    ids, column = _ids(chosen, viewer)
    if position is None or position[0] == "o":
        before = ids.filter(**{f"{column}__lt": position[1]}) if position is not None else ids
        found = list(before.order_by(f"-{column}")[: size + 1])
        shown = found[:size]
        older = f"o{shown[-1]}" if len(found) > size else None
        # (a cursor reached from the list's own links has newer matches; a made-up one may not)
        newer = (f"n{shown[0]}" if position is not None and shown
                 and ids.filter(**{f"{column}__gt": shown[0]}).exists() else None)
    else:
        found = list(ids.filter(**{f"{column}__gt": position[1]}).order_by(column)[: size + 1])
        shown = list(reversed(found[:size]))
        newer = f"n{shown[0]}" if len(found) > size else None
        older = f"o{shown[-1]}" if shown and ids.filter(**{f"{column}__lt": shown[-1]}).exists() else None
    return Page(_load(shown), newer, older)


def numbered_page(*, chosen: Filters, number: int, size: int = PAGE, viewer: Any = None) -> tuple[list[Match], bool]:
    """Page `number` by offset (old API clients' `?page=N`), only within the first MAX_OFFSET
    matches `viewer` may see; returns (the matches, whether a next page exists). A page past the
    list's last is NotFound with the list's pages (counted up to MAX_OFFSET: one index range)."""
    ids, column = _ids(chosen, viewer)
    start = (number - 1) * size
    if start >= MAX_OFFSET:
        if ids.order_by(f"-{column}")[MAX_OFFSET - 1: MAX_OFFSET].exists():  # deeper than reach, in a long list
            raise NotFound(f"page {number} is deeper than page numbers reach here (the newest {MAX_OFFSET:,} "
                           "matches); follow the list's next links, which use a cursor")
        raise _past_the_last(number, ids, size)
    found = list(ids.order_by(f"-{column}")[start: start + size + 1])
    if not found and number > 1:
        raise _past_the_last(number, ids, size)
    return _load(found[:size]), len(found) > size


def _past_the_last(number: int, ids: Any, size: int) -> NotFound:
    """A page past the last of a list shorter than MAX_OFFSET: its pages, as the other lists say them."""
    count = ids.order_by()[:MAX_OFFSET].count()
    return NotFound(f"page {number} does not exist: this list's pages run from 1 to {max(1, -(-count // size))}")


#: Most bots whose matches `latest_of` merges (a user's page): one index range each.
LATEST_BOTS = 10


def latest_of(*, bot_ids: list[int], limit: int, viewer: Any = None) -> list[Match]:
    """The newest `limit` matches any of the first LATEST_BOTS `bot_ids` sat in that `viewer` may
    see: each bot's newest through its seats' index, merged here (one query per bot, never a scan
    of their union)."""
    newest: set[int] = set()
    for bot_id in bot_ids[:LATEST_BOTS]:
        seats = visible(Participant.objects.filter(bot_id=bot_id), user=viewer, column="match_id").order_by("-match_id")
        newest.update(seats.values_list("match_id", flat=True)[:limit])
    return _load(sorted(newest, reverse=True)[:limit])
