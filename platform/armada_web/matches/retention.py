"""Retention: which stored files of matches expire, which are orphans, and pruning them.

- Unranked (challenge, event) matches: their replay and logs are kept `ARMADA_UNRANKED_KEEP_DAYS`
  days after the match finished (or was voided or failed), then deleted.
- Ranked and finals matches (a season's results link them): kept as long as their bots exist.
  A seat's log goes once its bot version is gone (deleted with its bot: the row's version is
  empty); the replay goes once no seat's version exists any more.
- A seat's drawings (`Participant.debug`) go with its log, whatever the kind of match.
- Orphans: files under `matches/` and `versions/` in storage (listed through the storage API, so
  a bucket's objects as well as a folder's) that no row names (a worker lost
  between saving and recording, a deletion that failed halfway, the temporary file of a write
  whose process was killed: `.partial-...` in the local folder), once older than
  `ARMADA_ORPHAN_GRACE_S` (a running match saves its files before its row names them).

`plan()` only reads; `prune()` clears the rows' file names first (each in its own update) and
then deletes the files, so a row never names a deleted file; a file whose deletion fails is
an orphan for the next run. The rows themselves (results, ratings) are always kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.storage import default_storage
from django.db.models import Q
from django.utils import timezone

from armada_web.bots.models import BotVersion
from armada_web.matches.models import ENDED, Match, MatchKind, Participant
from armada_web.storage import objectstore

ROOTS = ("matches", "versions")
#: Kinds whose files are kept as long as their bots exist.
KEPT = (MatchKind.RANKED, MatchKind.FINALS)
#: A seat's files: its log and its drawings, kept and pruned alike.
SEAT_FILES = ("log", "debug")


@dataclass
class Item:
    name: str
    size: int
    why: str  # "unranked-expired", "ranked-bot-gone", "orphan"
    match_id: int | None = None
    participant_id: int | None = None  # a log (or drawings); None with a match_id: the replay
    column: str = "log"  # the participant's field naming the file: "log" or "debug"


@dataclass
class Plan:
    items: list[Item] = field(default_factory=list)

    def summary(self) -> dict[str, tuple[int, int]]:
        """why -> (files, bytes)."""
        out: dict[str, tuple[int, int]] = {}
        for item in self.items:
            files, size = out.get(item.why, (0, 0))
            out[item.why] = (files + 1, size + item.size)
        return out

    @property
    def bytes(self) -> int:
        return sum(item.size for item in self.items)


def _size(name: str) -> int:
    try:
        return int(default_storage.size(name))
    except OSError:
        return 0


def _walk(folder: str) -> list[str]:
    """Every stored name under `folder` (the local folder or the bucket), with the writes a killed
    process left (a chaos trial: 160 MB of them after three uploads cut short); none when it cannot
    be listed."""
    try:
        return list(objectstore.walk(folder, partials=True))
    except OSError:
        return []


def plan(now: datetime | None = None) -> Plan:
    """What pruning would delete now (nothing is changed)."""
    at = timezone.now() if now is None else now
    result = Plan()
    cutoff = at - timedelta(days=settings.ARMADA.unranked_keep_days)
    expired = Match.objects.filter(~Q(kind__in=KEPT), status__in=ENDED, finished__lte=cutoff)
    for match_id, replay in expired.exclude(replay="").values_list("pk", "replay"):
        result.items.append(Item(replay, _size(replay), "unranked-expired", match_id))
    ranked = Match.objects.filter(kind__in=KEPT)
    for column in SEAT_FILES:
        for pid, match_id, name in (Participant.objects.filter(match__in=expired).exclude(**{column: ""})
                                    .values_list("pk", "match_id", column)):
            result.items.append(Item(name, _size(name), "unranked-expired", match_id, pid, column))
        for pid, match_id, name in (Participant.objects.filter(match__in=ranked, version__isnull=True)
                                    .exclude(**{column: ""}).values_list("pk", "match_id", column)):
            result.items.append(Item(name, _size(name), "ranked-bot-gone", match_id, pid, column))
    orphaned = (ranked.exclude(replay="").exclude(participants__version__isnull=False)
                .values_list("pk", "replay"))
    for match_id, replay in orphaned:
        result.items.append(Item(replay, _size(replay), "ranked-bot-gone", match_id))
    named = set(Match.objects.exclude(replay="").values_list("replay", flat=True))
    for column in SEAT_FILES:
        named |= set(Participant.objects.exclude(**{column: ""}).values_list(column, flat=True))
    named |= set(BotVersion.objects.exclude(archive="").values_list("archive", flat=True))
    named |= set(BotVersion.objects.exclude(replay="").values_list("replay", flat=True))
    grace = at - timedelta(seconds=settings.ARMADA.orphan_grace_s)
    for root in ROOTS:
        for name in _walk(root):
            if name in named:
                continue
            try:
                modified = default_storage.get_modified_time(name)
            except OSError:
                continue
            if modified <= grace:
                result.items.append(Item(name, _size(name), "orphan"))
    return result


def prune(*, todo: Plan) -> tuple[int, int]:
    """Delete what `todo` lists: rows' names first, then the files. Returns (files, bytes) deleted."""
    files = size = 0
    for item in todo.items:
        if item.participant_id is not None:
            Participant.objects.filter(pk=item.participant_id, **{item.column: item.name}).update(**{item.column: ""})
        elif item.match_id is not None:
            Match.objects.filter(pk=item.match_id, replay=item.name).update(replay="")
        try:
            default_storage.delete(item.name)
        except OSError:
            continue
        files += 1
        size += item.size
    return files, size
