"""Challenges: a signed-in user's unrated match between one of their bots and another bot.

Only games whose spec allows challenges (a league already plays every pairing). Bots are given by
id or by name (names are unique per game). The server picks the seed and alternates sides between
challenges of a pair; limits per user per hour and per pair per hour (settings) are refused with
RateLimited. Challenges go to their own queue, which the match workers serve beside the ranked
one, so they never wait behind its backlog.

`check` is the one rule; `challenge` enforces it (the limits counted again, authoritatively, in
the match's own transaction: accounts.limits) and `choices` (what the pages offer: which of a
user's bots may challenge each bot shown, and those held back by a limit with its refusal and
when it lifts) computes it for many bots in a few queries; `challengers` keeps the accepted ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from armada_web.accounts import limits
from armada_web.accounts.limits import in_words
from armada_web.bots.access import is_owner
from armada_web.bots.models import Bot, BotVersion
from armada_web.bots.queries import play_state
from armada_web.games import spec
from armada_web.matches.models import Match, MatchKind, Participant
from armada_web.matches.services import create_match
from armada_web.teams.access import team_ids
from armada_web.web.errors import DomainError, Forbidden, Invalid, NotFound, RateLimited
from armada_web.web.inputs import parse_id, parse_text

#: The actions the hourly limits count (accounts.limits): per team (the challenging bot's) and per
#: account (the challenger's, over all its teams), and per pair of bots.
CHALLENGE = "challenge"
CHALLENGE_PAIR = "challenge-pair"


@dataclass(frozen=True)
class Counts:
    """What the limits count: the challenging bot's team's challenges, the challenger's own over its
    teams and the pair's in the last hour; and, when the pages know it, when each limit reached lets
    one more through (`accounts.limits.free_at`)."""

    mine: int
    pair: int
    mine_free: datetime | None = None
    pair_free: datetime | None = None
    account: int = 0
    account_free: datetime | None = None


@dataclass(frozen=True)
class Choice:
    """One of a user's bots offered against a bot shown: `refusal` is empty when it may challenge
    now, else why not yet (a limit reached, and when it lifts)."""

    bot: Bot
    refusal: str = ""


def check(*, user: Any, bot: Bot, opponent: Bot, playing: set[int], counts: Counts, member: bool | None = None,
          explain: bool = True) -> None:
    """Raise the refusal of `user`'s challenge of `opponent` with `bot`, if any.

    `playing`: the ids of those of the two bots that play now (`BotVersion.objects.playing()`);
    `member`: whether `user` is in `bot`'s team, when the caller knows it already (else asked);
    `explain`: say why a bot does not play (a query or two; `choices` drops that refusal anyway).
    """
    if not (member if member is not None else is_owner(bot=bot, user=user)):
        raise Forbidden("not your bot: challenge with one of your own bots")
    if bot.pk == opponent.pk:
        raise Invalid("a bot cannot challenge itself")
    for one in (bot, opponent):
        game = spec(one.game)
        if not game.challenges:
            raise Invalid(f"{one.name} is a {game.label} bot: its games have no challenges "
                          f"(every pairing is played in its {game.table_label.lower()} already)")
    if bot.game != opponent.game:
        raise Invalid(f"{bot.name} and {opponent.name} play different games")
    for one in (bot, opponent):
        if one.pk not in playing:
            raise Invalid(_cannot_play(one, mine=one is bot) if explain else f"{one.name} cannot play now")
    config = settings.ARMADA
    if counts.mine >= config.challenges_per_hour:
        raise RateLimited(f"challenge limit reached: {config.challenges_per_hour} challenges per hour per team; "
                          f"{_again(counts.mine_free)}", retry_after_s=_wait_s(counts.mine_free))
    if counts.account >= config.challenges_per_hour:
        raise RateLimited(f"challenge limit reached: {config.challenges_per_hour} challenges per hour per account, "
                          f"over all your teams; {_again(counts.account_free)}",
                          retry_after_s=_wait_s(counts.account_free))
    if counts.pair >= config.challenges_per_pair_hour:
        raise RateLimited(f"challenge limit reached for this pair: {config.challenges_per_pair_hour} "
                          f"per hour; {_again(counts.pair_free)}", retry_after_s=_wait_s(counts.pair_free))


def _cannot_play(bot: Bot, *, mine: bool) -> str:
    """Why `bot` cannot play (`bots.queries.play_state`); for the challenger's own bot, what to do,
    e.g. restore its archived team as the upload refusal says."""
    bot = Bot.objects.select_related("team").filter(pk=bot.pk).first() or bot  # as it is now, not as read
    state = play_state(bot)
    if state.playing:  # it plays again since the caller looked
        return f"{bot.name} cannot play now; try again"
    if state.kind == "archived":
        restore = (f"; restore the team (its page /teams/{bot.team_id}/, or POST /api/teams/{bot.team_id}/restore/) "
                   "to challenge with it" if mine else "")
        return f"{bot.name} cannot play now: its team {bot.team.name} is archived{restore}"
    reason = state.reason[:1].lower() + state.reason[1:]
    return f"{bot.name} cannot play now: {reason}" + (f" {state.advice}" if mine and state.advice else "")


def _counts(team: list[datetime], account: list[datetime], pair: list[datetime]) -> Counts:
    """What `check` reads from the uses counted in the last hour (`accounts.limits.recent`): the
    bot's team's, the challenger's own and the pair's, and when each limit reached lets one through."""
    config = settings.ARMADA
    return Counts(mine=len(team), pair=len(pair), account=len(account),
                  mine_free=limits.free_at(team, limit=config.challenges_per_hour, window_s=3600),
                  pair_free=limits.free_at(pair, limit=config.challenges_per_pair_hour, window_s=3600),
                  account_free=limits.free_at(account, limit=config.challenges_per_hour, window_s=3600))


def _wait_s(free: datetime | None) -> float:
    """Seconds until `free` (an hour when not known: the limits' window)."""
    return 3600.0 if free is None else max(0.0, (free - timezone.now()).total_seconds())


def _again(free: datetime | None) -> str:
    """When to try again: at `free` when known, else within the hour."""
    if free is None:
        return "try again within the hour"
    wait_s = _wait_s(free)
    return f"try again at {free.astimezone(timezone.get_current_timezone()):%H:%M %Z} (in {in_words(wait_s)})"


def _by_id(value: int) -> Bot:
    bot = Bot.objects.select_related("owner").filter(pk=value).first()
    if bot is None:
        raise NotFound(f"no bot with id {value}")
    return bot


def find_bot(value: Any, what: str, *, user: Any = None, game: str | None = None) -> Bot:
    """The bot `value` names: an id (a JSON integer, or digits that name no bot) or a name.

    A name held in several games means the user's own bot (`user`) or the bot of `game`, when one is.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return _by_id(parse_id(value, what=f"{what}'s id"))
    if not isinstance(value, str) or not value.strip() or len(value) > 40:
        raise Invalid(f"give the {what} as a bot's id (a number) or its name")
    name = parse_text(value, what=what, max_length=40).strip()  # (no NUL or other control character)
    named = list(Bot.objects.select_related("owner").filter(name__iexact=name).order_by("game"))
    if not named:
        if name.isascii() and name.isdigit():
            return _by_id(parse_id(name, what=f"{what}'s id"))
        raise NotFound(f"no bot named {name!r}")
    if len(named) > 1:
        preferred = ([b for b in named if is_owner(bot=b, user=user)] if user is not None else []) or \
                    [b for b in named if b.game == game] or [b for b in named if spec(b.game).challenges]
        named = preferred or named
    return named[0]


def challenge(*, user: Any, bot: Any, opponent: Any) -> Match:
    """Queue an unrated match of `user`'s bot `bot` against `opponent` (each an id or a name)."""
    mine = find_bot(bot, "bot", user=user)
    theirs = find_bot(opponent, "opponent", game=mine.game)
    playing = set(BotVersion.objects.playing().filter(bot__in=[mine, theirs]).values_list("bot_id", flat=True))
    pair_key = limits.pair_key(mine.pk, theirs.pk)
    config = settings.ARMADA
    # With their times, as the pages count them, so a refusal says when to try again (a trial: the API
    # said "within the hour" where the page said "at 14:22 UTC")
    team_key, user_key = limits.team_key(mine.team_id), limits.user_key(user.pk)
    uses = limits.recent(action=CHALLENGE, keys={team_key, user_key}, window_s=3600)
    pair = limits.recent(action=CHALLENGE_PAIR, keys={pair_key}, window_s=3600).get(pair_key, [])
    counts = _counts(uses.get(team_key, []), uses.get(user_key, []), pair)
    check(user=user, bot=mine, opponent=theirs, playing=playing, counts=counts)
    versions = {v.bot_id: v for v in BotVersion.objects.playing().filter(bot__in=[mine, theirs]).select_related("bot")}
    if len(versions) < 2:  # one stopped playing since (retired, its version changed): that refusal
        check(user=user, bot=mine, opponent=theirs, playing=set(versions), counts=counts)
        raise Invalid(f"{theirs.name if mine.pk in versions else mine.name} cannot play now; try again")
    first, second = versions[mine.pk], versions[theirs.pk]
    with transaction.atomic():
        # Counted with the match's rows: parallel challenges meet the limits too.
        limits.take(action=CHALLENGE, key=limits.team_key(mine.team_id), limit=config.challenges_per_hour,
                    window_s=3600, refusal=f"challenge limit reached: {config.challenges_per_hour} challenges "
                                           "per hour per team")
        # and per account, whatever the team: one account in several teams challenges no more
        limits.take(action=CHALLENGE, key=limits.user_key(user.pk), limit=config.challenges_per_hour, window_s=3600,
                    refusal=f"challenge limit reached: {config.challenges_per_hour} challenges per hour per "
                            "account, over all your teams")
        limits.take(action=CHALLENGE_PAIR, key=pair_key, limit=config.challenges_per_pair_hour, window_s=3600,
                    refusal=f"challenge limit reached for this pair: {config.challenges_per_pair_hour} per hour")
        # The pair's last challenge through the bot's seats (index seat_pairing_newest).
        last = (Participant.objects.filter(bot=mine, opponent=theirs, match__kind=MatchKind.CHALLENGE)
                .order_by("-match_id").values_list("seat", flat=True).first())
        if last == 1:  # the bot sat first last time: the opponent does now
            first, second = second, first
        return create_match(game=mine.game, first=first, second=second, kind=MatchKind.CHALLENGE,
                            requested_by=user)


def choices(*, user: Any, opponents: Iterable[Bot]) -> dict[int, list[Choice]]:
    """Opponent bot id -> `user`'s bots that `challenge` would accept against it now, and those it
    refuses only for a limit reached (with `check`'s refusal, saying when to try again), by name;
    only the opponents with at least one. Four queries whatever the number of opponents."""
    others = {b.pk: b for b in opponents}
    if not others or user is None or not user.is_authenticated:
        return {}
    games = {b.game for b in others.values() if spec(b.game).challenges}
    mine = list(Bot.objects.select_related("owner").filter(team__in=team_ids(user=user), game__in=games)
                .order_by("name"))
    if not mine:
        return {}
    playing = set(BotVersion.objects.playing().filter(bot__in=[*mine, *others.values()])
                  .values_list("bot_id", flat=True))
    # The uses the limits count (accounts.limits, as `challenge` counts them), with their times.
    keys = {limits.team_key(b.team_id) for b in mine} | {limits.user_key(user.pk)}  # (one query for both kinds)
    teams = limits.recent(action=CHALLENGE, keys=keys, window_s=3600)
    account = teams.get(limits.user_key(user.pk), [])
    pairs = limits.recent(action=CHALLENGE_PAIR, keys={limits.pair_key(b.pk, pk) for b in mine for pk in others},
                          window_s=3600)
    offers: dict[int, list[Choice]] = {}
    for pk, opponent in others.items():
        for bot in mine:
            team = teams.get(limits.team_key(bot.team_id), [])
            pair = pairs.get(limits.pair_key(bot.pk, pk), [])
            counts = _counts(team, account, pair)
            try:
                check(user=user, bot=bot, opponent=opponent, playing=playing, counts=counts,
                      member=True, explain=False)  # (`mine` holds only the bots of the user's teams)
            except RateLimited as refused:
                offers.setdefault(pk, []).append(Choice(bot, str(refused)))
            except DomainError:
                continue
            else:
                offers.setdefault(pk, []).append(Choice(bot))
    return offers


def challengers(*, user: Any, opponents: Iterable[Bot]) -> dict[int, list[Bot]]:
    """Opponent bot id -> `user`'s bots that `challenge` would accept against it now (only the
    opponents with at least one), in four queries whatever the number of opponents."""
    accepted = {pk: [c.bot for c in offered if not c.refusal]
                for pk, offered in choices(user=user, opponents=opponents).items()}
    return {pk: bots for pk, bots in accepted.items() if bots}
