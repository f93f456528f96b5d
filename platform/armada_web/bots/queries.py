"""Bot and version reads."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db.models import OuterRef, Q, QuerySet, Subquery

from armada.botlog import crash_reason, last_note
from armada.games.registry import GAMES
from armada_web.bots.access import can_see_private
from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.games import spec
from armada_web.teams.access import team_ids


def entry_stopped(bot: Bot) -> str:
    """Why an entered version of `bot` plays no more games of an event, as "not played: ..." words
    (empty: it plays on), as `BotVersion.objects.playing()` decides but for the version: staff
    disabled the bot or its owner's account (a personal team's), its team retired it or was
    archived, or its owner deleted their account (its code is gone). An organiser's trial: a deleted
    account's entry was sent match after match, each void for the platform, and a retired bot played on."""
    kind = "orphaned" if bot.owner is None and not bot.disabled else stopped_kind(bot)  # (its code is gone)
    return ENTRY_STOPPED.get(kind, "").format(name=bot.name)


#: `entry_stopped`'s words for each `stopped_kind` (no reason given for a ban: "stopped").
ENTRY_STOPPED = {"disabled": "{name} was disabled by staff", "orphaned": "{name}'s owner deleted their account",
                 "retired": "{name} was retired", "archived": "{name}'s team was archived",
                 "stopped": "{name} does not play now"}


def stopped_kind(bot: Bot) -> str:
    """Why `bot` plays nothing, whatever its versions, as `BotVersion.objects.playing()` decides:
    "disabled", "retired", "orphaned" (its owner deleted their account), "stopped" (a personal team's
    owner whose account staff disabled), "archived" (its team); "" when none stops it."""
    if bot.disabled:
        return "disabled"
    if bot.retired is not None:
        return "retired"
    if bot.owner is None:
        return "orphaned"
    if bot.team.personal and not bot.owner.is_active:
        return "stopped"
    if bot.team.archived is not None:
        return "archived"
    return ""


def bots() -> QuerySet[Bot]:
    """Every bot with what its pages and the API show, newest versions first."""
    return Bot.objects.select_related("owner", "team", "active_version").order_by("game", "name")


def search(queryset: QuerySet[Bot], text: str) -> QuerySet[Bot]:
    """Bots whose name, description or owner's username holds `text`."""
    text = text.strip()
    if not text:
        return queryset
    return queryset.filter(
        Q(name__icontains=text) | Q(description__icontains=text) | Q(owner__username__icontains=text))


def bots_of(user: Any) -> QuerySet[Bot]:
    """The bots of the teams `user` is in now."""
    return bots().filter(team__in=team_ids(user=user))


def with_newest(queryset: QuerySet[Bot]) -> QuerySet[Bot]:
    """Each bot with its newest version's number and status (`newest_number`, `newest_status`; None
    without one), one subquery per row through the (bot, number) index, never every version."""
    newest = BotVersion.objects.filter(bot=OuterRef("pk")).order_by("-number")
    return queryset.annotate(newest_number=Subquery(newest.values("number")[:1]),
                             newest_status=Subquery(newest.values("status")[:1]))


def versions_of(bot: Bot) -> QuerySet[BotVersion]:
    """The bot's versions, the newest first."""
    return bot.versions.order_by("-number")


def version_for(version_id: int) -> BotVersion | None:
    """A version anyone may see (status and detail are public; logs and sources are not)."""
    rows = BotVersion.objects.select_related("bot", "bot__owner", "bot__team", "uploaded_by")
    return rows.filter(pk=version_id).first()


def private_version_for(user: Any, version_id: int) -> BotVersion | None:
    """A version whose private parts `user` may see (a member of its bot's team, or staff), else None (as if absent)."""
    version = version_for(version_id)
    return version if version is not None and can_see_private(user=user, bot=version.bot) else None


@dataclass(frozen=True)
class PlayState:
    """Whether a bot plays now and, when it does not, why and what its owner can do."""

    playing: bool
    #: "playing", "disabled", "retired", "orphaned", "stopped" (its owner's account disabled: no reason given),
    #: "archived", "validating", "no-valid-version"
    kind: str
    reason: str = ""
    advice: str = ""


#: The bot library's note when a bot of one game is run in a match of another (`armada.bot.runtime`).
_OTHER_GAME = re.compile(r"^\[armada\] this is a (\w+) bot; run with --game \w+")


def crash_line(*, version: BotVersion) -> str:
    """The error an invalid version crashed with, the last line of its log's traceback (what
    `armada play` says locally), or, for code of another game's bot library, that in the site's
    words (its own note gives `armada play`'s --game advice); empty otherwise. From the log: for
    those who may see it only."""
    if version.status != VersionStatus.INVALID or not version.detail.startswith("crashed"):
        return ""
    log = version.log or ""
    other = _OTHER_GAME.match(last_note(log))
    if other is not None and other[1] in GAMES and other[1] != version.bot.game:
        theirs, ours = spec(other[1]).label, spec(version.bot.game).label
        return (f"this is a {theirs} bot's code (it uses the {theirs} bot library), and {version.bot.name} plays "
                f"{ours}: upload it to a {theirs} bot, or {ours} code here")
    return crash_reason(log)


def play_state(bot: Bot) -> PlayState:
    """The bot's state as `BotVersion.objects.playing()` decides it, in words (the ladder adds benching)."""
    kind = stopped_kind(bot)
    if kind == "disabled":
        return PlayState(False, "disabled", f"Disabled by staff: {bot.disabled_reason or 'no reason given'}.",
                         "It plays no matches until staff enable it again; new versions do not change that.")
    if kind == "retired" and bot.retired is not None:
        return PlayState(False, "retired", f"Retired on {bot.retired:%Y-%m-%d}: it plays no more; its history stays.",
                         "A retired bot takes no new versions: create a new bot to play again.")
    if kind == "orphaned":
        return PlayState(False, "orphaned", "Its owner deleted their account: it plays no more.")
    if kind == "stopped":  # staff disabled the account (no reason given: a review)
        return PlayState(False, "stopped", "It plays no matches now.")
    if kind == "archived":
        return PlayState(False, "archived", f"Its team {bot.team.name} is archived: it plays no more.",
                         "A member can restore it; when it has none, a former member who left on their own.")
    if BotVersion.objects.playing().filter(bot=bot).exists():
        return PlayState(True, "playing")
    waiting = bot.versions.filter(status__in=[VersionStatus.PENDING, VersionStatus.VALIDATING]).order_by("-number")
    newest = waiting.first()
    if newest is not None:
        return PlayState(False, "validating", f"Version {newest.number} is being validated.",
                         "It plays as soon as its validation game passes; its page shows the progress.")
    return PlayState(False, "no-valid-version", "No valid version: it does not play.",
                     "Upload a version that passes its validation game (the version's page says why one failed).")
