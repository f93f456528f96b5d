"""Who is told about a bot: every current member of its team, each once, by their own preferences
and at their own confirmed address (accounts.mail checks both, and sends each member at most one
mail per event however often the event is told).
"""

from __future__ import annotations

from armada_web.accounts.mail import notify
from armada_web.bots.models import Bot
from armada_web.teams.models import Membership


def member_ids(*, team_id: int) -> list[int]:
    """The ids of the team's members now (each once, in the order they joined)."""
    ids = Membership.objects.members().filter(team_id=team_id).values_list("user_id", flat=True)
    return list(dict.fromkeys(user_id for user_id in ids if user_id is not None))


def notify_team_of(*, bot: Bot | None, topic: str, key: str, subject: str, body: str,
                   fallback_user_id: int | None = None) -> list[int]:
    """Mail every member of `bot`'s team now about `key` (after the commit); a bot that is gone, or
    whose team has no member left, goes to `fallback_user_id` (a season entry's user) when given.
    Returns the ids mailed (before each one's preferences and address are checked)."""
    return notify_team(team_id=bot.team_id if bot is not None else None, topic=topic, key=key, subject=subject,
                       body=body, fallback_user_id=fallback_user_id)


def notify_team(*, team_id: int | None, topic: str, key: str, subject: str, body: str,
                fallback_user_id: int | None = None) -> list[int]:
    """`notify_team_of` by the team's id (a season's entry keeps its team's id, not its bot)."""
    recipients = member_ids(team_id=team_id) if team_id is not None else []
    if not recipients and fallback_user_id is not None:
        recipients = [fallback_user_id]
    for user_id in recipients:
        notify(user_id=user_id, topic=topic, key=key, subject=subject, body=body)
    return recipients


def team_words(*, bot: Bot | None) -> str:
    """How a mail names the bot's team: nothing for a personal team (or a bot gone), " (team NAME)"
    for another."""
    if bot is None or bot.team.personal:
        return ""
    return f" (team {bot.team.name})"
