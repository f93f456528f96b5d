"""Match reads for the API and the pages: matches with their seats, the latest finished, a bot's
kept record and head-to-head, a seat's log line by line with its turn, each request's time
(the parsing is the SDK's `armada.botlog`).
(The filtered match list is `listing.py`.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery

from armada.botlog import SeatLog, log_requests, request_kinds
from armada.logmarks import EXCEPTION_MARK
from armada.replay import ReplayError, load_replay_bytes
from armada.timings import seat_times
from armada_web.bots.models import Bot, BotVersion
from armada_web.matches import storage
from armada_web.matches.access import can_see, public, visible
from armada_web.matches.models import BotRecord, HeadToHead, Match, MatchKind, MatchStatus, Participant


def matches() -> QuerySet[Match]:
    """Matches with their seats' versions and bots (two queries for any page)."""
    seats = Participant.objects.select_related("version", "version__bot", "version__bot__owner",
                                                "version__bot__team").order_by("seat")
    return Match.objects.prefetch_related(Prefetch("participants", queryset=seats)).order_by("-created", "-id")


def match_for(*, user: Any, match_id: int) -> Match | None:
    """The match with its seats, if `user` may see it (`matches.access`), else None (as if absent)."""
    match = matches().filter(pk=match_id).first()
    return match if match is not None and can_see(user=user, match=match) else None


def latest_finished(limit: int = 10, game: str | None = None, *, viewer: Any = None) -> list[Match]:
    """The latest finished matches `viewer` may see (None: an anonymous visitor)."""
    queryset = visible(matches().filter(status=MatchStatus.FINISHED), user=viewer)
    if game:
        queryset = queryset.filter(game=game)
    return list(queryset.order_by("-finished", "-id")[:limit])


def busiest_bot() -> int | None:
    """The bot that sat in the most matches (its kept record)."""
    return BotRecord.objects.order_by("-matches", "bot_id").values_list("bot_id", flat=True).first()


def record_of(bot_id: int) -> BotRecord:
    """The bot's kept counts (zeros before its first match)."""
    return BotRecord.objects.filter(bot_id=bot_id).first() or BotRecord(bot_id=bot_id)


@dataclass
class Record:
    """A bot's (or a version's) finished matches against one opponent bot."""

    opponent_id: int | None
    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, other: Record) -> None:
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses


def _other_seat(field: str) -> Subquery:
    """`field` of the other seat of a participant's match (its opponent)."""
    return Subquery(Participant.objects.filter(match=OuterRef("match")).exclude(seat=OuterRef("seat"))
                    .values(field)[:1])


def _tallies(seats: QuerySet[Participant], *keys: str) -> list[dict[str, Any]]:
    """Wins, draws and losses of finished seats grouped by `keys` (one GROUP BY in the database);
    a private event's matches are not counted (`access.public`)."""
    return list(public(seats, column="match_id").filter(match__status=MatchStatus.FINISHED).values(*keys).order_by()
                .annotate(wins=Count("pk", filter=Q(result="win")), draws=Count("pk", filter=Q(result="draw")),
                          losses=Count("pk", filter=Q(result="loss"))))


def _by_opponent(seats: QuerySet[Participant], bot_id: int, *keys: str) -> list[tuple[dict[str, Any], Record]]:
    """(row of `keys`, Record) per opponent bot (a deleted one by the name it played under)."""
    rows = _tallies(seats.annotate(other_name=_other_seat("name")), *keys, "opponent_id", "other_name")
    names = dict(Bot.objects.filter(pk__in={r["opponent_id"] for r in rows if r["opponent_id"]})
                 .values_list("pk", "name"))
    out = []
    for row in rows:
        opponent = row["opponent_id"]
        if opponent == bot_id:  # two versions of this bot against each other: see `compare_versions`
            continue
        out.append((row, Record(opponent, names.get(opponent) or row["other_name"] or "?",
                                row["wins"], row["draws"], row["losses"])))
    return out


def head_to_head(bot_id: int) -> QuerySet[HeadToHead]:
    """The bot's record against each opponent (finished matches, kept), most played first."""
    return HeadToHead.objects.filter(bot_id=bot_id).order_by("-games", "opponent_id")


def records(bot_id: int) -> list[Record]:
    """The bot's record against each opponent (finished matches, counted in the database), most played first."""
    table: dict[Any, Record] = {}
    for _row, record in _by_opponent(Participant.objects.filter(version__bot_id=bot_id), bot_id):
        key = record.opponent_id or f"gone:{record.opponent}"
        table.setdefault(key, Record(record.opponent_id, record.opponent)).add(record)
    return sorted(table.values(), key=lambda r: (-r.games, r.opponent.lower()))


def version_records(bot_id: int, version_ids: list[int] | None = None) -> dict[int, Record]:
    """Version id -> its finished matches (every opponent), counted in the database; only the
    versions `version_ids` when given (a page of them)."""
    seats = Participant.objects.filter(version__bot_id=bot_id)
    if version_ids is not None:
        seats = seats.filter(version_id__in=version_ids)
    return {row["version_id"]: Record(None, "", row["wins"], row["draws"], row["losses"])
            for row in _tallies(seats, "version_id")}


@dataclass
class Comparison:
    """Two versions of one bot side by side: against each opponent both or either met, and each other."""

    first: int
    second: int
    #: (opponent's name, its bot id or None, first's record, second's record): opponents both met first.
    rows: list[tuple[str, int | None, Record, Record]]
    #: The first's record against the second (matches between the two versions).
    direct: Record

    def common(self) -> tuple[Record, Record]:
        """Both versions' records summed over the opponents both of them met."""
        a, b = Record(None, ""), Record(None, "")
        for _name, _id, ra, rb in self.rows:
            if ra.games and rb.games:
                a.add(ra)
                b.add(rb)
        return a, b


def compare_versions(bot_id: int, first: int, second: int) -> Comparison:
    """Version numbers `first` and `second` of the bot against the same opponents (one GROUP BY)."""
    ids = dict(BotVersion.objects.filter(bot_id=bot_id, number__in=[first, second]).values_list("number", "pk"))
    seats = Participant.objects.filter(version_id__in=list(ids.values()))
    table: dict[Any, tuple[str, int | None, Record, Record]] = {}
    for row, record in _by_opponent(seats, bot_id, "version_id"):
        key = record.opponent_id or f"gone:{record.opponent}"
        entry = table.setdefault(key, (record.opponent, record.opponent_id, Record(None, ""), Record(None, "")))
        (entry[2] if row["version_id"] == ids.get(first) else entry[3]).add(record)
    direct = Record(None, "")
    for row in _tallies(seats.filter(version_id=ids.get(first)).annotate(other=_other_seat("version_id"))
                        .filter(other=ids.get(second)), "version_id"):
        direct.add(Record(None, "", row["wins"], row["draws"], row["losses"]))
    rows = sorted(table.values(), key=lambda r: (-(min(r[2].games, r[3].games) > 0), -(r[2].games + r[3].games),
                                                  r[0].lower()))
    return Comparison(first, second, rows, direct)


def faults_of(bot_id: int, limit: int = 5) -> list[Participant]:
    """The bot's latest finished matches that ended by its own fault (status other than ok), newest
    first; a private event's are not shown (`access.public`)."""
    seats = Participant.objects.filter(bot_id=bot_id).exclude(status__in=["ok", ""])  # index seat_faults_newest
    return list(public(seats, column="match_id")
                .filter(match__status=MatchStatus.FINISHED).select_related("match", "version")
                .order_by("-match_id")[:limit])


def challenges_by(user: Any, limit: int = 20) -> list[Match]:
    """The challenges `user` asked for, newest first."""
    return list(matches().filter(kind=MatchKind.CHALLENGE, requested_by=user)[:limit])


def replay_of(match: Match) -> dict[str, Any] | None:
    """The finished match's replay as data, None when it has none."""
    if not match.has_replay:
        return None
    raw = storage.read(match.replay.name or "")
    if raw is None:
        return None
    try:
        return load_replay_bytes(raw, f"match {match.pk}'s replay")
    except ReplayError:
        return None


def seat_log(participant: Participant) -> str:
    raw = storage.read(participant.log.name or "")
    return raw.decode("utf-8", "replace") if raw is not None else ""


def caught(*, log: SeatLog) -> dict[str, Any] | None:
    """The exceptions the bot library caught in a seat's log (its marks, D-R-10): how many, and the
    request of the first; None when none (a trial: an owner saw "ok" and an empty detail, and the
    exceptions only by reading the whole log)."""
    marked = [r for r in log.requests for line in r.lines if line.startswith(EXCEPTION_MARK)]
    return {"count": len(marked), "first": marked[0]} if marked else None


def seat_requests(participant: Participant, replay: dict[str, Any] | None) -> SeatLog:
    """The seat's log split by request, each named and timed from the match's replay (`armada.botlog`)."""
    times = [t.ms for t in seat_times(replay, participant.seat)]
    return log_requests(seat_log(participant), times, request_kinds(replay, participant.seat))
