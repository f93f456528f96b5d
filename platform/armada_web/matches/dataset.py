"""The site's games as a dataset: the public replays of finished ranked matches, newest first
(`GET /api/replays/`, `armada dataset download`).

A row is a match whose replay anyone may download (`/api/matches/{id}/replay/`): ranked, finished,
its replay still stored. Nothing private goes in (no sources, no logs). Filters: `game`,
`min_score` (both seats' shown ladder scores when the match was made, mu - 3 sigma before it as
`armada.ratings.displayed` computes it, at least this: the lower of the two decides; a seat
without a rating never passes) and `since` (finished at or after). Pages are a keyset on the
match id (`o<id>`: the matches older than id), one range of the `match_public_replays_newest`
index whatever the depth. A row carries the replay's size and SHA-256 as served, kept on the
match when the replay was saved; a match recorded before they were kept gets them once, the
first time it is listed or downloaded (`facts`), and never reads storage again.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from armada.ratings import Skill, displayed
from armada_web.bots.models import Game
from armada_web.matches import storage
from armada_web.matches.listing import PAGE
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant
from armada_web.web.errors import Invalid
from armada_web.web.inputs import MAX_ID
from armada_web.web.times import parse_time

#: A cursor: `o<id>`, the rows older than match id (the list only goes older: `next`).
CURSOR_PATTERN = r"o([1-9][0-9]{0,18})"
_CURSOR = re.compile(CURSOR_PATTERN)
#: The shown score's weight of sigma (`armada.ratings.displayed`: mu - 3 sigma), for the database's filter.
SIGMAS = round(displayed(Skill(0.0, -1.0)))
#: Largest |min_score| taken (shown scores are tens; this keeps the number a plain float).
MAX_SCORE = 1e9


@dataclass(frozen=True)
class Filters:
    """The list's checked filters (`filters()` builds them from a request's values)."""

    game: str = ""
    min_score: float | None = None
    since: datetime | None = None

    def query(self) -> dict[str, str]:
        """The filters as query parameters, for the next page's link."""
        values = {"game": self.game, "min_score": "" if self.min_score is None else repr(self.min_score),
                  "since": self.since.isoformat() if self.since else ""}
        return {key: value for key, value in values.items() if value}


@dataclass(frozen=True)
class Row:
    """One public replay: its match (with seats) and the replay file's size and checksum."""

    match: Match
    size: int
    sha256: str

    @property
    def seats(self) -> list[Participant]:
        return sorted(self.match.participants.all(), key=lambda p: p.seat)

    @property
    def players(self) -> list[str]:
        """The bots' names when the match was made, by seat."""
        return [p.name for p in self.seats]

    @property
    def scores(self) -> list[float | None]:
        """Each seat's shown ladder score before the match (None: it had no rating)."""
        return [None if p.mu_before is None or p.sigma_before is None
                else displayed(Skill(p.mu_before, p.sigma_before)) for p in self.seats]


@dataclass
class Page:
    rows: list[Row]
    older: str | None


def filters(*, game: Any = None, min_score: Any = None, since: Any = None) -> Filters:
    """The list's filters from raw request values (strings or None); Invalid naming the bad one."""
    text = "" if game is None else str(game).strip()
    if text and text not in Game.values:
        raise Invalid(f"game must be one of {', '.join(Game.values)}; got {text[:40]!r}")
    score: float | None = None
    raw = "" if min_score is None else str(min_score).strip()
    if raw:
        try:
            score = float(raw) if raw.isascii() and len(raw) <= 40 else math.nan
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            raise Invalid(f"min_score must be a number (a shown ladder score, e.g. 20 or 12.5); got {raw[:40]!r}")
        if abs(score) > MAX_SCORE:
            raise Invalid(f"min_score must be from -{MAX_SCORE:,.0f} to {MAX_SCORE:,.0f} (shown ladder scores lie well "
                          f"inside); got {raw[:40]!r}")
    return Filters(text, score, _since(since))


def _since(value: Any) -> datetime | None:
    """`since` in UTC (a time whose UTC falls outside years 1-9999 is refused, not a 500)."""
    parsed = parse_time(None if value is None else str(value).strip(), "since")
    try:
        return None if parsed is None else parsed.astimezone(UTC)
    except OverflowError:
        raise Invalid(f"since is out of range: {str(value)[:40]!r}") from None


def parse_cursor(value: Any) -> int | None:
    """The match id a cursor points below; None for none; Invalid for a garbled one."""
    text = "" if value is None else str(value).strip()
    if not text:
        return None
    found = _CURSOR.fullmatch(text)
    if found is None:
        raise Invalid("cursor: not one of this list's cursors; follow the list's next links")
    return min(int(found.group(1)), MAX_ID)


def public_replays() -> QuerySet[Match]:
    """Every match whose replay is public: ranked, finished, its replay stored."""
    return Match.objects.filter(kind=MatchKind.RANKED, status=MatchStatus.FINISHED).exclude(replay="")


def _chosen(chosen: Filters) -> QuerySet[Match]:
    rows = public_replays()
    if chosen.game:
        rows = rows.filter(game=chosen.game)
    if chosen.since is not None:
        rows = rows.filter(finished__gte=chosen.since)
    if chosen.min_score is not None:
        below = Participant.objects.filter(match=OuterRef("pk")).filter(
            Q(mu_before__isnull=True) | Q(sigma_before__isnull=True)
            | Q(mu_before__lt=chosen.min_score + SIGMAS * F("sigma_before")))
        rows = rows.exclude(Exists(below))
    return rows


def page(*, chosen: Filters, cursor: Any = None, size: int = PAGE) -> Page:
    """The page of the list below `cursor` (None: the newest), `size` rows."""
    below = parse_cursor(cursor)
    ids = _chosen(chosen)
    if below is not None:
        ids = ids.filter(pk__lt=below)
    found = list(ids.order_by("-id").values_list("id", flat=True)[: size + 1])
    shown = found[:size]
    loaded = {m.pk: m for m in Match.objects.filter(pk__in=shown).prefetch_related("participants")}
    rows = [row for row in (_row(loaded[i]) for i in shown if i in loaded) if row is not None]
    return Page(rows, f"o{shown[-1]}" if len(found) > size else None)


def _row(match: Match) -> Row | None:
    known = facts(match=match)
    return None if known is None else Row(match, *known)


def facts(*, match: Match, data: bytes | None = None) -> tuple[int, str] | None:
    """The replay file's (size, SHA-256) as served: the kept ones, else computed once from `data`
    (or storage) and kept; None when the file is gone."""
    if match.replay_size is not None and match.replay_sha256:
        return match.replay_size, match.replay_sha256
    name = match.replay.name or ""
    data = data if data is not None else storage.read(name)
    if data is None:
        return None
    size, sha = storage.digest(data)
    Match.objects.filter(pk=match.pk, replay=name).update(replay_size=size, replay_sha256=sha)
    match.replay_size, match.replay_sha256 = size, sha
    return size, sha
