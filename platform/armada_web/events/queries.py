"""Event reads for the API and the pages: an event a user may see, its table, its matches, the
events a user may see."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from armada_web.events.access import can_see, invite_matches, member_q, withdrawable_entries
from armada_web.events.logic import formats
from armada_web.events.models import Event, EventEntry, EventGame, EventState
from armada_web.matches import access as matches_access
from armada_web.matches.capacity import free, known_workers
from armada_web.matches.models import MatchStatus
from armada_web.teams.logic.names import DELETED_USER
from armada_web.teams.models import Team
from armada_web.web.errors import NotFound


def event(slug: str) -> Event:
    """The event (NotFound when there is none); who may do what is the services' to check."""
    found = Event.objects.select_related("owner").filter(slug=slug).first()
    if found is None:
        raise NotFound("no such event")
    return found


def visible_event(*, user: Any, slug: str, invite: Any = None) -> Event:
    """The event, if `user` may see it (a member, staff, a public event, or the right invite code);
    NotFound otherwise, as for an event that does not exist."""
    event = Event.objects.select_related("owner").filter(slug=slug).first()
    if event is None:
        raise NotFound("no such event")
    if can_see(user=user, event=event) or invite_matches(invite=invite, event=event):
        return event
    raise NotFound("no such event")


def visible_events(user: Any) -> QuerySet[Event]:
    """Public events and those `user` is a member of (`access.is_member`), newest first, each with
    its count of entries (`entry_count`: one query for a whole list)."""
    shown = member_q(user=user)
    entries = (EventEntry.objects.filter(event=OuterRef("pk")).order_by().values("event")
               .annotate(n=Count("pk")).values("n"))
    return (Event.objects.filter(shown).distinct().select_related("owner")
            .annotate(entry_count=Coalesce(Subquery(entries), 0)).order_by("-created", "-id"))


@dataclass(frozen=True)
class TableRow:
    place: int | None  # None: the event ended before it started, so nobody placed
    entry: EventEntry

    @property
    def owner(self) -> str:
        return self.entry.owner.username if self.entry.owner is not None else DELETED_USER


def table(event: Event) -> list[TableRow]:
    """The event's table: its stored places once finished, else live (points, wins, fewer losses, earlier
    entry); no places at all for an event that ended before it started (in the order of entry)."""
    entries = list(event.entries.select_related("owner"))
    if never_started(event):
        return [TableRow(None, e) for e in sorted(entries, key=lambda e: (e.created, e.pk))]
    if all(e.place is not None for e in entries) and entries:
        entries.sort(key=lambda e: e.place or 0)
    else:
        entries.sort(key=formats.table_key)
    return [TableRow(place, e) for place, e in enumerate(entries, start=1)]


def never_started(event: Event) -> bool:
    """The event ended before it started (its owner ended it while open): no game, no places."""
    return event.state == EventState.FINISHED and event.started is None


def withdrawable(event: Event, *, user: Any) -> set[int]:
    """The entries (their bot ids) `user` may withdraw from an open event (`services.withdraw`'s
    rule, `access.withdrawable_entries`); none once it started."""
    if event.state != EventState.OPEN:
        return set()
    return set(withdrawable_entries(user=user, event=event).values_list("bot_ref", flat=True))


def invited_teams(event: Event) -> QuerySet[Team]:
    """The teams the event invited (a user's invitation is their personal team), in the order invited."""
    return Team.objects.filter(event_invitations__event=event).order_by("event_invitations__created", "pk")


def waiting(event: Event, now: datetime | None = None) -> str:
    """Why the event is not going on as its page would lead one to expect, or "": an open event whose
    start time passed without two entries (it starts once a second bot enters), or a running
    one whose games wait because a season's finals take every worker."""
    now = now or timezone.now()
    if event.state == EventState.OPEN and event.starts is not None and event.starts <= now:
        count = event.entries.count()
        if count < 2:
            return (f"Its start time has passed with {count} entr{'y' if count == 1 else 'ies'}: an event needs two, "
                    f"so it starts as soon as {'a second bot enters' if count == 1 else 'two bots have entered'}.")
    workers = known_workers() if event.state == EventState.RUNNING else 0
    if workers > 0 and free(workers) <= 0:
        return "Its games wait for a worker: a season's finals take every worker now."
    return ""


def games_done(event: Event) -> int:
    """Its planned games that are done: played and counted, or skipped (see `games_played`)."""
    return event.games.filter(Q(counted=True) | ~Q(skipped="")).count()


def skip_reasons(event: Event) -> list[tuple[str, int]]:
    """Why its skipped games were not played ("a bot's version was deleted", ...) and how many each,
    the most first."""
    rows = (event.games.exclude(skipped="").values("skipped").annotate(count=Count("id"))
            .order_by("-count", "skipped"))
    return [(str(row["skipped"]).removeprefix("not played: "), int(row["count"])) for row in rows]


def games_played(event: Event) -> int:
    """Its games played and counted (not those skipped: never played as the event ended, or a bot gone)."""
    return event.games.filter(counted=True).count()


def recent_games(event: Event, *, user: Any, limit: int = 30) -> list[EventGame]:
    """The event's latest played games that `user` may see, newest first, with their matches: none of
    a private event's for one who sees its page only through its invite code (its matches are its
    members', and their pages answer 404 to anyone else)."""
    games = event.games.filter(counted=True, match__status=MatchStatus.FINISHED)
    return list(matches_access.visible(games, user=user, column="match_id")
                .select_related("match", "first", "second").order_by("-number")[:limit])
