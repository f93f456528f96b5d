"""Who may do what with a bot: the members of its team change it (all equally), they and staff
see its private parts (sources, logs); membership is asked of `teams.access` on every call, so a
member who leaves loses access at once. Each rule is one function here, used by the services (which enforce it) and by
`actions` (what the pages offer a user, as data), so a button is shown exactly when the service
would accept it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.teams.access import is_member
from armada_web.teams.models import Membership
from armada_web.web.errors import Forbidden
from armada_web.web.roles import is_staff


def is_owner(*, bot: Bot, user: Any) -> bool:
    """`user` manages `bot`: a member of its team now (the team owns the bot)."""
    return is_member(user=user, team_id=bot.team_id)


def check_owner(*, bot: Bot, user: Any) -> None:
    """Forbidden unless `user` is a member of `bot`'s team."""
    if not is_owner(bot=bot, user=user):
        raise Forbidden("not your bot: only the members of its team may change it")


def upload_refusal(*, bot: Bot) -> str | None:
    """Why `bot` takes no new version now, or None when it does."""
    if bot.retired is not None:
        return "this bot is retired and takes no new versions; create a new bot"
    if bot.team.archived is not None:
        return "this bot's team is archived; restore the team to upload"
    return None


def activation_refusal(*, bot: Bot, version: BotVersion | None = None) -> str | None:
    """Why `version` (any version, when None) cannot become `bot`'s active version now, or None when it can."""
    if bot.retired is not None:
        return "this bot is retired: it plays no more, so it has no active version to choose"
    if version is not None and version.status != VersionStatus.VALID:
        return f"version {version.number} is {version.status}; only a valid version can be active"
    return None


def delete_refusal(*, bot: Bot, user: Any, has_versions: bool) -> str | None:
    """Why `user`, a member of `bot`'s team, may not delete it now, or None. A shared team's bot with
    versions goes only by the team's last member, and never from a team that removed a member
    (D-S-37): the others manage it too, and it would take its versions and its seat in every match
    it played away from them (they retire it instead); removing them first must not open the way."""
    if not has_versions or bot.team.personal:
        return None
    instead = "retire it instead (it stops playing and keeps its history)" if bot.retired is None else \
        "it is retired already: it stops playing and keeps its history"
    members = Membership.objects.filter(team_id=bot.team_id)
    if members.current().filter(user__isnull=False).exclude(user_id=user.pk).exists():
        return (f"{bot.name} belongs to the team {bot.team.name}, whose other members manage it too: one member "
                f"cannot delete its versions and history; {instead}, or delete it once you are the team's "
                f"only member")
    if members.filter(removed=True).exists():
        return (f"{bot.name} belongs to the team {bot.team.name}, which removed members: its bots with versions "
                f"are not deleted, so that nobody deletes them by removing the others first; {instead}")
    return None


def can_see_private(*, user: Any, bot: Bot) -> bool:
    """A member of its team, or staff: may read the bot's sources and logs."""
    return is_staff(user) or bool(user is not None and user.is_authenticated and is_owner(bot=bot, user=user))


def private_audience(*, bot: Bot, user: Any) -> str:
    """Who sees `bot`'s private parts, in words for `user` ("you and staff"): its team now and
    staff, the rule of `can_see_private`. A shared team's member reads "your team", since every
    member sees what they see; a staff member outside the team reads "its team"."""
    if not is_owner(bot=bot, user=user):
        return "its team and staff"
    return "you and staff" if bot.team.personal else "your team and staff"


@dataclass(frozen=True)
class BotActions:
    """What `user` may do with a bot now (the pages show exactly these buttons)."""

    owner: bool = False
    private: bool = False
    upload: bool = False
    retire: bool = False
    delete: bool = False
    #: Versions the owner may make active (valid, not active already, the bot not retired).
    activatable: frozenset[int] = field(default_factory=frozenset)

    def can_activate(self, version: BotVersion) -> bool:
        return version.pk in self.activatable


def actions(*, user: Any, bot: Bot, versions: list[BotVersion]) -> BotActions:
    """The actions of `user` on `bot` whose versions are `versions`."""
    owner = is_owner(bot=bot, user=user)
    activatable = frozenset(v.pk for v in versions if owner and v.pk != bot.active_version_id
                            and activation_refusal(bot=bot, version=v) is None)
    return BotActions(owner=owner, private=can_see_private(user=user, bot=bot),
                      upload=owner and upload_refusal(bot=bot) is None, retire=owner and bot.retired is None,
                      delete=owner and delete_refusal(bot=bot, user=user, has_versions=bool(versions)) is None,
                      activatable=activatable)
