"""Who may see a match: anyone, but for a match of a private event (kind `event`), which is that
event's content: its members (its owner, those who entered a bot, the members of an entered bot's
team, the members of the teams it invited) and staff only, the rule of `events.access.can_see`. For
anyone else such a match does not exist: its page, API detail and replay answer as for a missing
match, and no list shows it.

The events app registers its rule (`events.access.member_q`) here when it loads (`events_seen`),
so this layer imports nothing above it and the rule is written once; a match of kind `event` that
no event game names any more (an earlier try of a game that was made again) belongs to no visible
event and shows to staff only, as every event match does while no rule is registered.

What the public sees of a bot counts no such match either (`public`, `private_event`): its kept
record and head-to-head (`tallies`), its records by version and opponent, its last faults.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Q, QuerySet

from armada_web.matches.models import Match, MatchKind
from armada_web.web.roles import is_staff

#: "events" -> function(user) -> the ids of the events `user` may see (registered from above).
_seen: dict[str, Callable[[Any], QuerySet[Any]]] = {}


def events_seen(seen: Callable[[Any], QuerySet[Any]]) -> None:
    """Register the events' rule: `seen(user)`, the ids of the events whose matches `user` may see
    (idempotent; the events app does it when it loads)."""
    _seen["events"] = seen


def _events_seen(*, user: Any) -> QuerySet[Any] | list[int] | None:
    """The ids of the events whose matches `user` may see (a subquery over the events, which are
    few beside their matches); None for staff, who see every match; none while no rule is registered."""
    if is_staff(user):
        return None
    seen = _seen.get("events")
    return seen(user) if seen is not None else []


def visible(queryset: QuerySet[Any], *, user: Any, column: str = "pk") -> QuerySet[Any]:
    """`queryset` (of matches, or of rows whose match id is `column`, such as a seat's `match_id`)
    without the matches `user` may not see.

    A row of kind `event` is kept when its event game's event is one `user` may see: the events are
    chosen first (a small set), and each row looks its own event game up, so a list stops after its
    page whatever the number of private events' games the site has played
    (bench/_private_events_probe.py measures it)."""
    events = _events_seen(user=user)
    if events is None:
        return queryset
    match = "" if column == "pk" else f"{column.removesuffix('_id')}__"
    return queryset.filter(~Q(**{f"{match}kind": MatchKind.EVENT}) | Q(**{f"{match}event_game__event__in": events}))


def can_see(*, user: Any, match: Match) -> bool:
    """Whether `user` may see `match` (every match but a private event's to anyone outside the event)."""
    if match.kind != MatchKind.EVENT:
        return True
    return visible(Match.objects.filter(pk=match.pk), user=user).exists()


def public(queryset: QuerySet[Any], *, column: str = "pk") -> QuerySet[Any]:
    """`queryset` without the matches of private events: what anyone may see, and what a bot's
    public record counts."""
    return visible(queryset, user=None, column=column)


def private_event(*, match_id: int) -> bool:
    """Whether the match is a private event's (or an event match no event game names any more):
    no bot's public record counts it."""
    event_match = Match.objects.filter(pk=match_id, kind=MatchKind.EVENT)
    return event_match.exists() and not public(event_match).exists()
