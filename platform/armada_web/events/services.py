"""Event writes: create one, change it, invite teams or users, enter or withdraw a bot, start it,
end it, finish it. Every function is keyword-only, checks every rule itself and raises an
`armada_web.web.errors` error with a message, changing nothing; the API, the pages and beat
(events.matchmaking) call these.

Limits per user (events created per day, entries made per day) are `accounts.limits` counters,
taken in the transaction of the write they limit, so parallel requests cannot pass them and
neither a deleted event nor a withdrawn entry gives a use back; an entry's count per event is
taken with the event's row locked.
"""

from __future__ import annotations

import secrets
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.html import strip_tags
from django.utils.text import slugify

from armada_web.accounts import limits
from armada_web.bots.access import is_owner
from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.queries import entry_stopped
from armada_web.bots.services import under_team_lock
from armada_web.events import access
from armada_web.events.access import can_see, invite_matches, invited_team_ids, withdrawable_entries
from armada_web.events.logic import formats
from armada_web.events.models import (
    Event,
    EventEntry,
    EventFormat,
    EventGame,
    EventInvitation,
    EventState,
    EventWithdrawal,
)
from armada_web.games import spec
from armada_web.ladder.logic import results
from armada_web.matches.models import Match, MatchStatus, Participant
from armada_web.matches.services import cancel_queued
from armada_web.teams.logic.names import DELETED_USER
from armada_web.teams.models import Membership, Team
from armada_web.web.errors import Conflict, Forbidden, Invalid, NotFound
from armada_web.web.inputs import parse_id, shown_name_problem, storable
from armada_web.web.times import parse_time

NAME_MAX = 100
#: The most characters of a name the pages' forms read: any longer is refused unread, in the rule's
#: words (FAR_TOO_LONG); any other length is left to `_event_name`.
NAME_READ_MAX = NAME_MAX * 4
FAR_TOO_LONG = f"an event's name has at most {NAME_MAX} characters (this one has more than {NAME_READ_MAX})"
#: The window of the per-day limits, in seconds.
DAY_S = 24 * 3600


def _user(user: Any) -> User:
    if not isinstance(user, User) or not user.is_authenticated:
        raise Forbidden("sign in first")
    return user


def _whole(value: Any, what: str, low: int, high: int, default: int | None = None) -> int:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isascii() \
            or not str(value).isdigit() or len(str(value)) > 18 or not low <= int(value) <= high:
        raise Invalid(f"{what} must be a whole number from {low} to {high}")
    return int(value)


def create_event(*, user: Any, name: Any, game: Any, format: Any, games_per_pair: Any = None,  # noqa: A002
                 starts: Any = None, ends: Any = None, public: Any = False, max_entrants: Any = None,
                 now: datetime | None = None) -> Event:
    """A new event owned by `user` (open for entries; its invite code made here)."""
    owner = _user(user)
    now = now or timezone.now()
    name = _event_name(name)
    try:
        game_spec = spec(game if isinstance(game, str) else "")
    except KeyError:
        raise Invalid(f"unknown game {game!r}") from None
    if format not in EventFormat.values:
        raise Invalid(f"format must be one of: {', '.join(EventFormat.values)}")
    config = settings.ARMADA
    per_pair = None
    if format == EventFormat.ROUND_ROBIN:
        per_pair = _whole(games_per_pair, "games_per_pair", 1, config.event_max_games_per_pair, default=1)
    elif games_per_pair not in (None, ""):
        raise Invalid("games_per_pair is for a round robin; a ladder plays until it ends")
    starts_at, ends_at = parse_time(starts, "starts"), parse_time(ends, "ends")
    if format == EventFormat.LADDER and ends_at is None:
        raise Invalid("a ladder event needs its end (ends)")
    if ends_at is not None and ends_at <= (starts_at or now):
        raise Invalid("an event ends after it starts (and after now)")
    if starts_at is not None and starts_at < now - timedelta(minutes=5):
        raise Invalid("starts is in the past; leave it out to start the event yourself")
    if public is None:
        public = False
    if not isinstance(public, bool):
        raise Invalid("public must be true or false")
    entrants = _whole(max_entrants, "max_entrants", 2, config.event_max_entrants, default=config.event_max_entrants)
    with transaction.atomic():  # a refusal below takes the use back with the transaction
        limits.take(action="event", key=limits.user_key(owner.pk), limit=config.events_per_day, window_s=DAY_S,
                    refusal=f"event limit reached: {config.events_per_day} events per day")
        _refuse_open_twin(owner=owner, name=name)  # (a form sent twice made two events, both counted)
        # A name's markup is shown as text, but its tags' letters in the address read as words ("bnightb").
        slug = f"{slugify(strip_tags(name))[:40].strip('-') or 'event'}-{secrets.token_hex(3)}"
        return Event.objects.create(slug=slug, name=name, game=game_spec.slug, owner=owner, format=format,
                                    games_per_pair=per_pair, starts=starts_at, ends=ends_at, public=public,
                                    max_entrants=entrants, invite=secrets.token_urlsafe(16))


def _refuse_open_twin(*, owner: Any, name: str, event: Event | None = None) -> None:
    """Conflict when `owner` has another open event named `name`, in any case (two would look alike on
    the lists). Within a transaction: the owner's row is locked first, so two renames or a rename and a
    create at once are judged one after the other."""
    list(User.objects.select_for_update().filter(pk=owner.pk).values_list("pk", flat=True))
    twins = Event.objects.filter(owner=owner, name__iexact=name, state=EventState.OPEN)
    twin = (twins.exclude(pk=event.pk) if event is not None else twins).first()
    if twin is not None:
        raise Conflict(f"you have an open event named {twin.name!r} already ({twin.slug}): "
                       "give this one another name")


def _event_name(name: Any) -> str:
    """An event's name, its runs of white space made one space; Invalid with the reason."""
    if not isinstance(name, str) or not name.strip():
        raise Invalid("an event needs a name")
    name = unicodedata.normalize("NFC", " ".join(name.split()))  # (one way to write "Café", not two)
    problem = shown_name_problem(name, what="an event's name")
    if problem:
        raise Invalid(problem)
    if len(name) > NAME_MAX:
        raise Invalid(f"an event's name has at most {NAME_MAX} characters (this one has {len(name)})")
    return name


#: `edit_event`'s default for a field not given (None is a value there: no start time).
UNCHANGED: Any = object()


def edit_event(*, user: Any, event: Event, name: Any = UNCHANGED, starts: Any = UNCHANGED, ends: Any = UNCHANGED,
               max_entrants: Any = UNCHANGED, games_per_pair: Any = UNCHANGED,
               now: datetime | None = None) -> Event:
    """Its owner changes an event: its name at any time; while it is open its start (None: its owner
    starts it), its end, its entrants' limit (not below the entries it has) and a round robin's games
    per pair; a running ladder's end (later or earlier, not past). Fields not given stay; the same
    rules as `create_event` hold for the result."""
    _check_owner(user, event, "changes it")
    now = now or timezone.now()
    config = settings.ARMADA
    with transaction.atomic():
        locked = _locked_event(event)
        changed: list[str] = []
        if name is not UNCHANGED and name != locked.name:  # (a name kept is not judged by rules made since)
            locked.name = _event_name(name)
            _refuse_open_twin(owner=locked.owner, name=locked.name, event=locked)  # (an organiser's trial)
            changed.append("name")
        timing = {"starts": starts, "ends": ends, "max_entrants": max_entrants, "games_per_pair": games_per_pair}
        asked = [field for field, value in timing.items() if value is not UNCHANGED]
        running_ladder = locked.state == EventState.RUNNING and locked.format == EventFormat.LADDER
        refused = [field for field in asked if field not in access.changeable_fields(event=locked)]
        if refused:
            hint = " (a running ladder's end still does)" if running_ladder else ""
            raise Conflict(f"this event is {locked.state}: its {', '.join(refused)} no longer change{hint}")
        if starts is not UNCHANGED:
            locked.starts = parse_time(starts, "starts")
            if locked.starts is not None and locked.starts < now - timedelta(minutes=5):
                raise Invalid("starts is in the past; leave it out (null) to start the event yourself")
        if ends is not UNCHANGED:
            locked.ends = parse_time(ends, "ends")
        if locked.format == EventFormat.LADDER and locked.ends is None:
            raise Invalid("a ladder event needs its end (ends)")
        if locked.ends is not None and "ends" in asked and locked.ends <= max(now, locked.starts or now):
            raise Invalid("an event ends after it starts (and after now)")
        if locked.ends is not None and locked.starts is not None and locked.ends <= locked.starts:
            raise Invalid("an event ends after it starts (and after now)")
        if max_entrants is not UNCHANGED:
            locked.max_entrants = _whole(max_entrants, "max_entrants", 2, config.event_max_entrants)
            entries = locked.entries.count()
            if locked.max_entrants < entries:
                raise Conflict(f"this event has {entries} entries already: max_entrants cannot be fewer")
        if games_per_pair is not UNCHANGED:
            if locked.format != EventFormat.ROUND_ROBIN:
                raise Invalid("games_per_pair is for a round robin; a ladder plays until it ends")
            locked.games_per_pair = _whole(games_per_pair, "games_per_pair", 1, config.event_max_games_per_pair)
        changed += asked
        if changed:
            locked.save(update_fields=changed)
    return locked


def _is_id(value: Any) -> bool:
    """Whether `value` is an id (1 to 2**63 - 1) as an integer or ASCII digits (an API trial: a 19-digit
    id was "not an integer" and 0 "no bot with id 0")."""
    try:
        parse_id(value)
    except Invalid:
        return False
    return True


def _bot(value: Any) -> Bot:
    if not _is_id(value):
        raise Invalid("give your bot's id as an integer")
    bot = Bot.objects.filter(pk=int(value)).first()
    if bot is None:
        raise NotFound(f"no bot with id {value}")
    return bot


#: The most teams and users one invitation request names.
INVITE_MAX = 100


def _teams_to_invite(teams: Any, users: Any, team_names: Any = None) -> list[Team]:
    """The teams named by id or name and the users named by username (each as their personal team), checked."""
    teams, users, team_names = teams or [], users or [], team_names or []
    if not all(isinstance(v, list | tuple) for v in (teams, users, team_names)):
        raise Invalid("teams is a list of team ids, users a list of usernames")
    if not teams and not users and not team_names:
        raise Invalid("name the teams (their ids or names) or users (their usernames) to invite")
    if len(teams) + len(users) + len(team_names) > INVITE_MAX:
        raise Invalid(f"invite at most {INVITE_MAX} teams and users at once")
    if any(isinstance(t, bool) or not isinstance(t, int) or not 0 < t < 2 ** 62 for t in teams):
        raise Invalid("give each team by its id (a positive integer)")
    if any(not isinstance(n, str) or not n.strip() for n in [*users, *team_names]):
        raise Invalid("give each user by their username and each team by its name")
    if not all(storable(n) for n in [*users, *team_names]):  # no name holds one; the database refuses NUL
        raise Invalid("a username or team name holds a NUL character or a lone surrogate: no name holds one")
    found = {t.pk: t for t in Team.objects.filter(pk__in=teams)}
    problems = []  # every name not found, whichever list it is in, said at once
    missing = [str(t) for t in teams if t not in found]
    if missing:
        problems.append(f"no team with id {', '.join(missing)}")
    nameless = []
    for name in team_names:
        named = Team.objects.filter(name__iexact=name.strip()).first()
        if named is None:
            nameless.append(name.strip())
        else:
            found[named.pk] = named
    if nameless:
        problems.append(f"no team named {', '.join(nameless)}")
    names = [u.strip() for u in users]
    personal = dict(Membership.objects.current().filter(team__personal=True, user__username__in=names)
                    .values_list("user__username", "team_id"))
    unknown, several = [], []
    for name in (u for u in names if u not in personal):  # sign-up refuses a name differing only by case
        others = list(Membership.objects.current().filter(team__personal=True, user__username__iexact=name)
                      .values_list("team_id", flat=True)[:2])
        if not others:
            unknown.append(name)
        elif len(others) > 1:  # (accounts made before that rule, or by staff)
            several.append(name)
        else:
            personal[name] = others[0]
    if unknown:
        problems.append(f"no account named {', '.join(unknown)}")
    if several:
        problems.append(f"{', '.join(several)} names several accounts in different cases: give the exact username")
    if problems:
        raise NotFound("; ".join(problems))
    found.update(Team.objects.in_bulk(list(personal.values())))
    archived = sorted(t.name for t in found.values() if t.archived is not None)
    if archived:
        raise Conflict(f"{', '.join(archived)} is archived: it cannot be invited")
    return sorted(found.values(), key=lambda t: t.pk)


def invite_teams(*, user: Any, event: Event, teams: Any = None, users: Any = None,
                 team_names: Any = None) -> list[Team]:
    """The event's owner invites teams (by id or name) and users (by username: their personal team) to an
    open event: their members see it and enter a bot of the invited team without the invite code.
    Inviting a team twice changes nothing; returns the teams invited now or before, by id."""
    _check_owner(user, event, "invites teams and users")
    refusal = access.invite_refusal(event=event)  # (said before the names: none would help; again under the lock)
    if refusal:
        raise Conflict(refusal)
    chosen = _teams_to_invite(teams, users, team_names)
    with transaction.atomic():
        locked = _locked_event(event)
        refusal = access.invite_refusal(event=locked)
        if refusal:
            raise Conflict(refusal)
        have = set(locked.invitations.values_list("team_id", flat=True))
        if len(have | {t.pk for t in chosen}) > INVITE_MAX * 10:
            raise Conflict(f"an event invites at most {INVITE_MAX * 10} teams")
        EventInvitation.objects.bulk_create([EventInvitation(event=locked, team=t) for t in chosen
                                             if t.pk not in have])
    return list(Team.objects.filter(event_invitations__event=event).order_by("pk"))


def _check_owner(user: Any, event: Event, doing: str) -> None:
    """NotFound for one who may not know the event exists; Forbidden for anyone but its owner."""
    if not can_see(user=user, event=event):
        raise NotFound("no such event")
    if not access.is_owner(user=user, event=event):  # (an event whose owner left has none: staff's admin only)
        raise Forbidden(f"only the event's owner {doing}")


def renew_invite(*, user: Any, event: Event) -> Event:
    """The owner replaces the event's invite code: the old link stops working at once (a link that
    leaked, or went to the wrong people); entries made with it stay. Refused once it no longer
    serves (`access.renew_refusal`)."""
    _check_owner(user, event, "renews its invite link")
    with transaction.atomic():
        locked = _locked_event(event)
        refusal = access.renew_refusal(event=locked)
        if refusal:
            raise Conflict(refusal)
        locked.invite = secrets.token_urlsafe(16)
        locked.save(update_fields=["invite"])
    return locked


def uninvite(*, user: Any, event: Event, team_id: Any) -> list[Team]:
    """The owner takes back a team's invitation (one sent by mistake): its members no longer see a
    private event, unless a bot of their team is entered (an entry stays, and plays). Returns the
    teams still invited. Refused once the event is finished (`access.uninvite_refusal`)."""
    _check_owner(user, event, "takes back invitations")
    if not _is_id(team_id):
        raise Invalid("give the invited team by its id")
    with transaction.atomic():
        locked = _locked_event(event)
        refusal = access.uninvite_refusal(event=locked)
        if refusal:
            raise Conflict(refusal)
        if not locked.invitations.filter(team_id=int(team_id)).delete()[0]:
            raise NotFound(f"this event has no invitation of team {int(team_id)}")
    return list(Team.objects.filter(event_invitations__event=event).order_by("pk"))


def check_invite(*, user: Any, event: Event, invite: Any, bot: Bot | None = None) -> None:
    """NotFound for someone who may not know the private event exists; Forbidden for a wrong code
    on a public one. The owner needs no code, nor a bot of a team the owner invited."""
    if access.is_owner(user=user, event=event):
        return
    if invite_matches(invite=invite, event=event):
        return
    if bot is not None and event.invitations.filter(team_id=bot.team_id).exists():
        return
    if not can_see(user=user, event=event):
        raise NotFound("no such event")
    if invite in (None, "") and invited_team_ids(user=user, event=event):
        raise Forbidden("your team's invitation is for a bot of the invited team: enter one of its bots "
                        "(or give the event's invite code)")
    raise Forbidden("that is not this event's invite code; ask its owner for the invite link")


def enter(*, user: Any, event: Event, bot_id: Any, invite: Any = None, now: datetime | None = None) -> EventEntry:
    """`user` enters a bot of one of their teams with a valid, playing version (one bot per member
    and per team), with the invite code or as a member of the invited team that owns the bot."""
    member = _user(user)
    now = now or timezone.now()
    bot = Bot.objects.filter(pk=int(bot_id)).select_related("team").first() if _is_id(bot_id) else None
    owned = bot is not None and is_owner(bot=bot, user=member)
    seen = can_see(user=member, event=event) or invite_matches(invite=invite, event=event)
    if bot is not None and not owned and seen:  # (said before anything about codes: no code would help)
        raise Forbidden("not your bot: enter a bot of a team you are a member of")
    if seen and event.state != EventState.OPEN:  # (nor here: an organiser's trial was told of the code)
        raise Conflict(f"this event is {event.state}: it takes no more entries")
    check_invite(user=member, event=event, invite=invite, bot=bot if owned else None)
    bot = _bot(bot_id)
    if not is_owner(bot=bot, user=member):
        raise Forbidden("not your bot: enter a bot of a team you are a member of")
    if bot.game != event.game:
        raise Conflict(f"{bot.name} plays {spec(bot.game).label}; this event plays {spec(event.game).label}")
    version = BotVersion.objects.playing().filter(bot=bot).first()
    if version is None:  # (a retired or disabled bot: no upload would help, an organiser's trial was told to)
        why = entry_stopped(bot)
        raise Conflict(f"{why}: it enters nothing" if why else
                       f"{bot.name} has no valid version yet: upload one and wait for its validation")
    config = settings.ARMADA
    with transaction.atomic():
        # The bot's team's row first (teams.services' lock), then the event's: the order an account's
        # deletion takes (its teams, then the events it owns). Under it the member's place in the team
        # again: a removal that has just committed takes the bot from them.
        bot = under_team_lock(bot=bot)
        if not is_owner(bot=bot, user=member):
            raise Forbidden("not your bot: enter a bot of a team you are a member of")
        locked = _locked_event(event)
        # Again under the lock that renewing the code and taking an invitation back take: an entry
        # waiting on them is judged by the code and the invitations they leave.
        check_invite(user=member, event=locked, invite=invite, bot=bot)
        if locked.state != EventState.OPEN:
            raise Conflict(f"this event is {locked.state}: it takes no more entries")
        if locked.ends is not None and locked.ends <= now:
            raise Conflict("this event has ended: it takes no more entries")
        mine = locked.entries.filter(owner=member).first()  # (one the team removed them from too)
        if mine is not None:
            raise Conflict(f"you have entered {mine.bot_name} already: one bot per member")
        ours = locked.entries.filter(Q(team_id=bot.team_id) | Q(bot__team_id=bot.team_id)).first()  # (moved in)
        if ours is not None and ours.team_id != bot.team_id:  # (its entry stays its old team's: check_move)
            raise Conflict(f"your team {bot.team.name}'s bot {ours.bot_name} is in this event already, entered for "
                           f"{ours.team_name} before it moved to your team: one bot per team")
        if ours is not None:
            raise Conflict(f"your team {bot.team.name} has entered {ours.bot_name} already: one bot per team")
        count = locked.entries.count()
        if count >= locked.max_entrants:
            raise Conflict(f"this event is full ({count} of {locked.max_entrants} entrants): "
                           "the invite takes no more")
        limits.take(action="event-entry", key=limits.user_key(member.pk), limit=config.event_entries_per_day,
                    window_s=DAY_S,
                    refusal=f"entry limit reached: {config.event_entries_per_day} event entries per day")
        try:
            with transaction.atomic():
                return EventEntry.objects.create(event=locked, bot=bot, bot_ref=bot.pk, bot_name=bot.name,
                                                 owner=member, team=bot.team, team_name=bot.team.name,
                                                 version=version)
        except IntegrityError:
            raise Conflict(f"{bot.name} or another bot of yours is in this event already") from None


def withdraw(*, user: Any, event: Event, bot_id: Any) -> None:
    """A bot leaves an open event (its entry is deleted): asked by a member of the team that entered
    it, the member who entered it (unless the team has removed them since: `entrant_entries`), or the
    event's owner (an entry that should not be there). Once the event has started, its entries
    stay: the table and the games played keep them."""
    member = _user(user)
    if not can_see(user=member, event=event):
        raise NotFound("no such event")
    if not _is_id(bot_id):
        raise Invalid("give the entered bot by its id")
    with transaction.atomic():
        locked = _locked_event(event)
        entry = locked.entries.filter(bot_ref=int(bot_id)).select_related("bot").first()
        if entry is None:
            raise NotFound(f"this event has no entry of bot {int(bot_id)}")
        if not withdrawable_entries(user=member, event=locked).filter(pk=entry.pk).exists():
            raise Forbidden("only a member of the team that entered the bot or the event's owner withdraws "
                            "its entry")
        if locked.state != EventState.OPEN:
            raise Conflict(f"this event is {locked.state}: its entries stay in its table")
        # (kept: who withdrew which bot; the day's entries are counted in accounts.limits, and a
        # withdrawal gives no use back)
        EventWithdrawal.objects.create(event=locked, owner=entry.owner, bot_ref=entry.bot_ref, bot_name=entry.bot_name,
                                       entered=entry.created, by=member)
        entry.delete()


def end_event(*, user: Any, event: Event, now: datetime | None = None) -> Event:
    """Its owner ends an open or running event now: `finish` (the table frozen as it stands,
    matches no worker took cancelled, games not played skipped)."""
    _check_owner(user, event, "ends it")
    if not finish(event=event, now=now):
        raise Conflict("this event is finished already")
    return Event.objects.get(pk=event.pk)


def _locked_event(event: Event) -> Event:
    """The event's row, locked for this transaction; NotFound when it was deleted meanwhile."""
    locked = Event.objects.select_for_update().filter(pk=event.pk).first()
    if locked is None:
        raise NotFound("no such event")
    return locked


def start_event(*, user: Any, event: Event, now: datetime | None = None) -> Event:
    """Its owner starts an open event (beat does at `starts`): the versions that play are taken
    now (each entry's bot's playing version, else the one it entered with), a round robin's games
    are planned, and matches go out as the workers' share allows (events.matchmaking)."""
    if not can_see(user=user, event=event):
        raise NotFound("no such event")
    if not access.is_owner(user=user, event=event):
        raise Forbidden("only the event's owner starts it")
    return begin(event=event, now=now)


def begin(*, event: Event, now: datetime | None = None) -> Event:
    """Start an open event (no owner check: beat and start_event call this)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _locked_event(event)
        if locked.state != EventState.OPEN:
            raise Conflict(f"this event is {locked.state} already")
        entries = list(locked.entries.order_by("created", "id"))
        if len(entries) < 2:
            raise Conflict(f"an event needs at least 2 entries to start (it has {len(entries)})")
        playing = {v.bot_id: v for v in BotVersion.objects.playing().filter(bot_id__in=[e.bot_id for e in entries])}
        for entry in entries:
            entry.version = playing.get(entry.bot_id or 0) or entry.version
        EventEntry.objects.bulk_update(entries, ["version"])
        if locked.format == EventFormat.ROUND_ROBIN:
            pairs = formats.round_robin([e.pk for e in entries], locked.games_per_pair or 1)
            EventGame.objects.bulk_create([EventGame(event=locked, number=n, first_id=a, second_id=b)
                                           for n, (a, b) in enumerate(pairs, start=1)], batch_size=500)
            locked.games_total = len(pairs)
        locked.state, locked.started = EventState.RUNNING, now
        locked.save(update_fields=["state", "started", "games_total"])
    return locked


def finish(*, event: Event, now: datetime | None = None) -> bool:
    """A running event ends (all its games played, or its `ends` passed; an open one past its end
    too): its table is frozen (places stored), matches no worker took are cancelled and games
    never played are skipped. False when it was finished already."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _locked_event(event)
        if locked.state == EventState.FINISHED:
            return False
        # `count_game`'s order, the game's row and then the entries': the games not played are
        # skipped first (waiting for a game being recorded now, which then counts and is in the
        # places), then the entries are locked and read (a recording that waited for them sees its
        # game skipped). The other order deadlocked with such a recording on PostgreSQL.
        waiting = list(locked.games.filter(match__status=MatchStatus.QUEUED).values_list("match_id", flat=True))
        locked.games.filter(counted=False, skipped="").update(skipped="not played: the event ended")
        entries = sorted(locked.entries.select_for_update(of=("self",)).order_by("pk"), key=formats.table_key)
        for place, entry in enumerate(entries, start=1):
            entry.place = place
        EventEntry.objects.bulk_update(entries, ["place"])
        cancel_queued(match_ids=waiting, reason="cancelled: the event ended before it was played")
        locked.state, locked.finished = EventState.FINISHED, now
        locked.save(update_fields=["state", "finished"])
    return True


def count_game(*, match: Match, winner: int | None) -> int | None:
    """An event's match was recorded (inside its recording transaction): both entries' lines of the
    table move once (`ladder.logic.results.apply_game`; 3 points a win, 1 a draw; a ladder event's
    own rating, for its pairing, moves too). Returns the event's id, or None when the game counts
    for nothing (not an event game, counted already, or the event is not running: its table is
    frozen)."""
    # Only the game's and the entries' rows (`of`): the event's row is what the matchmaking locks
    # before it creates matches; taking it after the recording counted on the bots' records deadlocks.
    game = EventGame.objects.select_for_update(of=("self",)).select_related("event").filter(match=match).first()
    if game is None or game.done or game.event.state != EventState.RUNNING:
        return None
    entries = EventEntry.objects.select_for_update(of=("self",)).order_by("pk").in_bulk([game.first_id, game.second_id])
    # Read again now the entries are ours: `finish` locks them before it freezes the table, so an
    # event it finished while this waited for them is seen here, and its places stay true.
    if not Event.objects.filter(pk=game.event_id, state=EventState.RUNNING).exists():
        return None
    first, second = entries[game.first_id], entries[game.second_id]
    results.apply_game(first, second, winner, rated=game.event.format == EventFormat.LADDER)
    for entry in (first, second):
        entry.points = formats.points(entry.wins, entry.draws)
        entry.save(update_fields=["games", "wins", "draws", "losses", "points", "mu", "sigma"])
    game.counted = True
    game.save(update_fields=["counted"])
    return game.event_id


def uncount_game(*, match: Match) -> int | None:
    """Staff voided a finished event match (inside `void_by_staff`'s transaction): a running event's
    table is counted again from its other counted games, in the order they were recorded (a ladder
    event's own ratings replayed too), and the game is no longer counted, so a round robin plays it
    again. A finished event's table is final and stays. Returns the event's id when the table moved."""
    game = EventGame.objects.select_for_update(of=("self",)).select_related("event").filter(match=match).first()
    if game is None or not game.counted:
        return None
    # The entries' rows first, then the event's state: `finish` locks them before it freezes the table.
    table = {entry.pk: entry for entry in
             EventEntry.objects.select_for_update(of=("self",)).filter(event_id=game.event_id).order_by("pk")}
    event = Event.objects.get(pk=game.event_id)
    if event.state != EventState.RUNNING:
        return None
    game.counted = False
    game.save(update_fields=["counted"])
    for entry in table.values():
        entry.games = entry.wins = entry.draws = entry.losses = entry.points = 0
        entry.mu, entry.sigma = EventEntry._meta.get_field("mu").default, EventEntry._meta.get_field("sigma").default
    kept = (EventGame.objects.filter(event_id=event.pk, counted=True, match__status=MatchStatus.FINISHED)
            .order_by("match__finished", "match_id").values_list("first_id", "second_id", "match_id"))
    winners = dict(Participant.objects.filter(match_id__in=[m for _f, _s, m in kept], result="win")
                   .values_list("match_id", "seat"))
    for first, second, match_id in kept:
        results.apply_game(table[first], table[second], winners.get(match_id),
                           rated=event.format == EventFormat.LADDER)
    for entry in table.values():
        entry.points = formats.points(entry.wins, entry.draws)
    EventEntry.objects.bulk_update(list(table.values()), ["games", "wins", "draws", "losses", "points", "mu", "sigma"])
    return event.pk


def forget_member(*, user: Any) -> int:
    """`user` is deleting their account: the events' rows of their personal team no longer bear its
    name (it may be their username; a new account may take it), as seasons.services.forget_member
    does for the seasons'. Returns the rows changed."""
    personal = Membership.objects.filter(user_id=user.pk, team__personal=True).values("team_id")
    return EventEntry.objects.filter(team_id__in=personal).update(team_name=DELETED_USER)


def check_move(*, bot: Bot, target: Team) -> None:
    """`bot` is about to move to the team `target` (`bots.moves.move_bot`, in its transaction, the
    teams' rows locked): refused (Conflict) while it is entered in an event not finished where
    `target` is in already (an entry of its own, or one whose bot has moved there): one bot per team,
    as `enter` keeps it. The entry keeps the team it entered with (its members are the event's, not
    the new team's: a private event's matches stay theirs)."""
    entries = list(EventEntry.objects.filter(bot=bot).exclude(event__state=EventState.FINISHED)
                   .select_related("event"))
    if not entries:
        return
    list(Event.objects.select_for_update().filter(pk__in={e.event_id for e in entries}).order_by("pk"))
    for entry in entries:  # (under the events' locks: an entry of `target` cannot slip in meanwhile)
        theirs = (EventEntry.objects.filter(event_id=entry.event_id).exclude(pk=entry.pk)
                  .filter(Q(team=target) | Q(bot__team=target)).first())
        if theirs is not None:
            raise Conflict(f"{bot.name} is entered in the event {entry.event.name}, where the team {target.name} "
                           f"has entered {theirs.bot_name} already (one bot per team): withdraw one of them, or "
                           "move the bot once the event has finished")
