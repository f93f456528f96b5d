"""Event writes: create one, enter a bot, start it, finish it. Every function is keyword-only, checks
every rule itself and raises an `armada_web.web.errors` error with a message, changing nothing; the
API, the pages and beat (events.matchmaking) call these.

Limits per user (events created per day, entries made per day) are counted with the user's row
locked, in the transaction of the write they limit, so parallel requests cannot pass them (the
pattern of `bots.services.create_bot` and `accounts.services.create_token`); an entry's count
per event is taken with the event's row locked the same way.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from armada_web.bots.access import is_owner
from armada_web.bots.models import Bot, BotVersion
from armada_web.events.access import can_see
from armada_web.events.logic import formats
from armada_web.events.models import Event, EventEntry, EventFormat, EventGame, EventState
from armada_web.games import spec
from armada_web.ladder.logic import results
from armada_web.matches.models import Match, MatchStatus
from armada_web.matches.services import cancel_queued
from armada_web.web.errors import Conflict, Forbidden, Invalid, NotFound, RateLimited
from armada_web.web.times import parse_time

NAME_MAX = 100
DAY = timedelta(days=1)


def _user(user: Any) -> User:
    if not isinstance(user, User) or not user.is_authenticated:
        raise Forbidden("sign in first")
    return user


def _whole(value: Any, what: str, low: int, high: int, default: int | None = None) -> int:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isascii() \
            or not str(value).isdigit() or not low <= int(value) <= high:
        raise Invalid(f"{what} must be a whole number from {low} to {high}")
    return int(value)


def _locked_user(user: User) -> None:
    User.objects.select_for_update().filter(pk=user.pk).first()


def create_event(*, user: Any, name: Any, game: Any, format: Any, games_per_pair: Any = None,  # noqa: A002
                 starts: Any = None, ends: Any = None, public: Any = False, max_entrants: Any = None,
                 now: datetime | None = None) -> Event:
    """A new event owned by `user` (open for entries; its invite code made here)."""
    owner = _user(user)
    now = now or timezone.now()
    if not isinstance(name, str) or not name.strip():
        raise Invalid("an event needs a name")
    name = " ".join(name.split())
    if len(name) > NAME_MAX:
        raise Invalid(f"an event's name has at most {NAME_MAX} characters (this one has {len(name)})")
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
    with transaction.atomic():
        _locked_user(owner)
        made = Event.objects.filter(owner=owner, created__gte=now - DAY).count()
        if made >= config.events_per_day:
            raise RateLimited(f"event limit reached: {config.events_per_day} events per day; try again tomorrow")
        slug = f"{slugify(name)[:40].strip('-') or 'event'}-{secrets.token_hex(3)}"
        return Event.objects.create(slug=slug, name=name, game=game_spec.slug, owner=owner, format=format,
                                    games_per_pair=per_pair, starts=starts_at, ends=ends_at, public=public,
                                    max_entrants=entrants, invite=secrets.token_urlsafe(16))


def _bot(value: Any) -> Bot:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isascii() \
            or not str(value).isdigit() or len(str(value)) > 18:
        raise Invalid("give your bot's id as an integer")
    bot = Bot.objects.filter(pk=int(value)).first()
    if bot is None:
        raise NotFound(f"no bot with id {value}")
    return bot


def check_invite(*, user: Any, event: Event, invite: Any) -> None:
    """NotFound for someone who may not know the private event exists; Forbidden for a wrong code
    on a public one. The owner needs no code."""
    if event.owner_id is not None and getattr(user, "pk", None) == event.owner_id:
        return
    if isinstance(invite, str) and secrets.compare_digest(invite, event.invite):
        return
    if not can_see(user=user, event=event):
        raise NotFound("no such event")
    raise Forbidden("that is not this event's invite code; ask its owner for the invite link")


def enter(*, user: Any, event: Event, bot_id: Any, invite: Any = None, now: datetime | None = None) -> EventEntry:
    """`user` enters one of their bots with a valid, playing version (one bot per member)."""
    member = _user(user)
    now = now or timezone.now()
    check_invite(user=member, event=event, invite=invite)
    bot = _bot(bot_id)
    if not is_owner(bot=bot, user=member):
        raise Forbidden("not your bot: enter a bot of a team you are a member of")
    if bot.game != event.game:
        raise Conflict(f"{bot.name} plays {spec(bot.game).label}; this event plays {spec(event.game).label}")
    version = BotVersion.objects.playing().filter(bot=bot).first()
    if version is None:
        raise Conflict(f"{bot.name} has no valid version that plays (retired, disabled, or none valid yet); "
                      "upload one and wait for its validation")
    config = settings.ARMADA
    with transaction.atomic():
        locked = Event.objects.select_for_update().get(pk=event.pk)
        if locked.state != EventState.OPEN:
            raise Conflict(f"this event is {locked.state}: it takes no more entries")
        if locked.ends is not None and locked.ends <= now:
            raise Conflict("this event has ended: it takes no more entries")
        mine = locked.entries.filter(owner=member).first()
        if mine is not None:
            raise Conflict(f"you have entered {mine.bot_name} already: one bot per member")
        count = locked.entries.count()
        if count >= locked.max_entrants:
            raise Conflict(f"this event is full ({count} of {locked.max_entrants} entrants): "
                           "the invite takes no more")
        _locked_user(member)
        made = EventEntry.objects.filter(owner=member, created__gte=now - DAY).count()
        if made >= config.event_entries_per_day:
            raise RateLimited(f"entry limit reached: {config.event_entries_per_day} event entries per day; "
                              "try again tomorrow")
        try:
            with transaction.atomic():
                return EventEntry.objects.create(event=locked, bot=bot, bot_ref=bot.pk, bot_name=bot.name,
                                                 owner=member, version=version)
        except IntegrityError:
            raise Conflict(f"{bot.name} or another bot of yours is in this event already") from None


def start_event(*, user: Any, event: Event, now: datetime | None = None) -> Event:
    """Its owner starts an open event (beat does at `starts`): the versions that play are taken
    now (each entry's bot's playing version, else the one it entered with), a round robin's games
    are planned, and matches go out as the workers' share allows (events.matchmaking)."""
    if not can_see(user=user, event=event):
        raise NotFound("no such event")
    if user is not None and getattr(user, "pk", None) != event.owner_id:
        raise Forbidden("only the event's owner starts it")
    return begin(event=event, now=now)


def begin(*, event: Event, now: datetime | None = None) -> Event:
    """Start an open event (no owner check: beat and start_event call this)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = Event.objects.select_for_update().get(pk=event.pk)
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
        locked = Event.objects.select_for_update().get(pk=event.pk)
        if locked.state == EventState.FINISHED:
            return False
        entries = sorted(locked.entries.all(), key=formats.table_key)
        for place, entry in enumerate(entries, start=1):
            entry.place = place
        EventEntry.objects.bulk_update(entries, ["place"])
        waiting = list(locked.games.filter(match__status=MatchStatus.QUEUED).values_list("match_id", flat=True))
        locked.games.filter(counted=False, skipped="").update(skipped="not played: the event ended")
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
    first, second = entries[game.first_id], entries[game.second_id]
    results.apply_game(first, second, winner, rated=game.event.format == EventFormat.LADDER)
    for entry in (first, second):
        entry.points = formats.points(entry.wins, entry.draws)
        entry.save(update_fields=["games", "wins", "draws", "losses", "points", "mu", "sigma"])
    game.counted = True
    game.save(update_fields=["counted"])
    return game.event_id
