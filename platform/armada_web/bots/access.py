"""Who may do what with a bot: the owner changes it, owner and staff see its private parts
(sources, logs), and what the pages offer a user comes from here as data (`actions`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.errors import Forbidden


def is_owner(*, bot: Bot, user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and bot.owner_id == user.pk)


def check_owner(*, bot: Bot, user: Any) -> None:
    """Forbidden unless `user` owns `bot`."""
    if not is_owner(bot=bot, user=user):
        raise Forbidden("not your bot")


def can_see_private(*, user: Any, bot: Bot) -> bool:
    """Owner or staff: may read the bot's sources and logs."""
    return bool(user is not None and user.is_authenticated and (user.is_staff or bot.owner_id == user.pk))


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
    playing = owner and bot.retired is None
    activatable = frozenset(v.pk for v in versions
                            if playing and v.status == VersionStatus.VALID and v.pk != bot.active_version_id)
    return BotActions(owner=owner, private=can_see_private(user=user, bot=bot), upload=playing, retire=playing,
                      delete=owner, activatable=activatable)
