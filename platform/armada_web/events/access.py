"""Who may see an event: anyone when it is public, else its members (its owner, those who entered a
bot, the members of an entered bot's team and the members of the teams it invited) and staff.
Everyone else is answered as if it did not exist. Each rule on what its owner may still change in
an event's state (`*_refusal`) is one function here, used by the services (which enforce it) and
by `actions` (what the event's page offers, as data), so a button shows exactly when the service
would accept it."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.queries import bots_of
from armada_web.events.models import Event, EventEntry, EventFormat, EventState
from armada_web.teams.access import removed_from_ids, team_ids
from armada_web.web.roles import is_staff


def invited_team_ids(*, user: Any, event: Event) -> list[int]:
    """The ids of the invited teams `user` is a member of now."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return list(event.invitations.filter(team_id__in=team_ids(user=user)).values_list("team_id", flat=True))


def entrant_entries(*, user: Any) -> QuerySet[EventEntry]:
    """The entries `user` made and still acts on (sees the event through, withdraws): all but those
    of a team that has removed them since (the entry is the team's: its members act on it; a member
    who left keeps theirs, to withdraw it and enter another team's bot). Each still counts as their
    one entry of the event."""
    if user is None or not getattr(user, "is_authenticated", False):
        return EventEntry.objects.none()
    return EventEntry.objects.filter(owner=user.pk).exclude(team_id__in=removed_from_ids(user=user))


def withdrawable_entries(*, user: Any, event: Event) -> QuerySet[EventEntry]:
    """The entries of `event` that `user` may withdraw while it is open: every one for its owner, else
    those the user entered (`entrant_entries`) and those of the teams the user is in, the team that
    entered each (as the event's visibility reads it, `member_q`: a bot moved to another team since
    stays that team's entry; a review found the new team's members withdrawing it)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return EventEntry.objects.none()
    entries = event.entries.all()
    if event.owner_id == user.pk:
        return entries
    teams = team_ids(user=user)
    return entries.filter(Q(pk__in=entrant_entries(user=user).values("pk")) | Q(team_id__in=teams)
                          | Q(team__isnull=True, bot__team_id__in=teams))


def is_member(*, user: Any, event: Event) -> bool:
    """Its owner, someone who entered a bot (`entrant_entries`), a member of an entered bot's team
    (the team's bot plays there), or a member of a team it invited."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(event.owner_id == user.pk or entrant_entries(user=user).filter(event=event).exists()
                or event.entries.filter(team_id__in=team_ids(user=user)).exists()
                or invited_team_ids(user=user, event=event))


def member_q(*, user: Any) -> Q:
    """The events `user` may see, as a filter over events: the public ones and those `is_member`
    says `user` is a member of (staff aside: `can_see`). Event lists and the matches of private
    events (`matches.access`, which the events app gives this rule) both use it."""
    shown = Q(public=True)
    if user is not None and getattr(user, "is_authenticated", False):
        teams = team_ids(user=user)
        shown |= (Q(owner=user.pk) | Q(pk__in=entrant_entries(user=user).values("event_id"))
                  | Q(entries__team__in=teams) | Q(invitations__team__in=teams))
    return shown


def seen_event_ids(user: Any) -> QuerySet[Any]:
    """The ids of the events `user` may see (`member_q`), for `matches.access`."""
    return Event.objects.filter(member_q(user=user)).values("pk")


def can_see(*, user: Any, event: Event) -> bool:
    """Whether `user` may know the event exists: anyone for a public one; its members and staff."""
    return bool(event.public or is_member(user=user, event=event) or is_staff(user))


def is_owner(*, user: Any, event: Event) -> bool:
    """Whether `user` is signed in and owns the event (one whose owner's account is gone has none)."""
    return bool(user is not None and getattr(user, "is_authenticated", False) and event.owner_id == user.pk)


def may_delete(*, event: Event) -> bool:
    """Staff may delete an event only while it is open (no game made yet: a spam event, say); a
    running or finished one's games and table stay."""
    return event.state == EventState.OPEN


def invite_matches(*, invite: Any, event: Event) -> bool:
    """Whether `invite` is the event's invite code (compared in constant time, as bytes: a code with
    characters outside ASCII is simply wrong, never an error)."""
    return isinstance(invite, str) and bool(event.invite) and secrets.compare_digest(
        invite.encode(errors="replace"), event.invite.encode())


def may_enter(*, user: Any, event: Event, invite: Any = "") -> bool:
    """Whether the event's page offers `user` to enter (bots aside): an open event they have no entry
    in yet, as its owner, with a code (`services.enter` checks it at the click, saying what is wrong)
    or as a member of an invited team."""
    if not getattr(user, "is_authenticated", False) or event.state != EventState.OPEN:
        return False
    if event.entries.filter(owner_id=user.pk).exists():
        return False
    return is_owner(user=user, event=event) or bool(invite) or bool(invited_team_ids(user=user, event=event))


def enterable_bots(*, user: Any, event: Event, invite: Any = "") -> list[Bot]:
    """The bots the event's page offers `user` to enter, by `services.enter`'s rules: their teams'
    bots of its game with a version that plays; only the invited teams' unless `user` owns the
    event or holds a code; none of a team entered already (one bot per team)."""
    if not getattr(user, "is_authenticated", False):
        return []
    playing = BotVersion.objects.playing().values("bot_id")
    bots = bots_of(user).filter(game=event.game, retired__isnull=True, pk__in=playing).exclude(
        team_id__in=event.entries.exclude(team__isnull=True).values("team_id")).exclude(
        team_id__in=event.entries.exclude(bot__isnull=True).values("bot__team_id"))
    if not is_owner(user=user, event=event) and not invite:
        bots = bots.filter(team_id__in=invited_team_ids(user=user, event=event))
    return list(bots)


#: An event's fields its owner sets for how and when it plays (all of them change only while it is open).
TIMING = frozenset({"starts", "ends", "max_entrants", "games_per_pair"})


def changeable_fields(*, event: Event) -> frozenset[str]:
    """The fields of `event` its owner may change now (`services.edit_event` refuses the others): its
    name at any time; while it is open every field of `TIMING`; a running ladder's end."""
    running_ladder = event.state == EventState.RUNNING and event.format == EventFormat.LADDER
    return frozenset({"name"}) | (TIMING if event.state == EventState.OPEN
                                  else frozenset({"ends"}) if running_ladder else frozenset())


def invite_refusal(*, event: Event) -> str | None:
    """Why the owner may invite no more teams or users now, or None: only an open event takes entries."""
    if event.state != EventState.OPEN:
        return f"this event is {event.state}: it takes no more entries, so no more invitations"
    return None


def renew_refusal(*, event: Event) -> str | None:
    """Why the owner may not renew the invite link now, or None. While the event is open the link
    enters a bot; a private event's link also shows its page and table to whoever holds it, in
    every state, so renewing it closes a link that leaked. A public event that has started is seen
    by anyone and takes no entries: its link no longer serves."""
    if event.state == EventState.OPEN or not event.public:
        return None
    if event.state == EventState.FINISHED:
        return "the event is finished: entries are closed, so its invite link no longer serves"
    return "the event has started: entries are closed, so its invite link no longer serves"


def uninvite_refusal(*, event: Event) -> str | None:
    """Why the owner may not take an invitation back now, or None. While it runs, taking one back
    still hides a private event from a team with no entry; a finished event is a record."""
    if event.state == EventState.FINISHED:
        return "the event is finished: its invitations stay as they were"
    return None


@dataclass(frozen=True)
class EventActions:
    """What `user` may do with an event now (its page shows exactly these controls; entering a bot
    is `may_enter` and `enterable_bots`, withdrawing `queries.withdrawable`)."""

    owner: bool = False
    edit: bool = False
    start: bool = False
    end: bool = False
    invite: bool = False
    renew_invite: bool = False
    uninvite: bool = False


def actions(*, user: Any, event: Event) -> EventActions:
    """The actions of `user` on `event`, by the services' rules (the owner's only: staff change an
    event in the admin). `start` still needs two entries, which the page says."""
    if not is_owner(user=user, event=event):
        return EventActions()
    return EventActions(owner=True, edit=True, start=event.state == EventState.OPEN,
                        end=event.state != EventState.FINISHED, invite=invite_refusal(event=event) is None,
                        renew_invite=renew_refusal(event=event) is None,
                        uninvite=uninvite_refusal(event=event) is None)
