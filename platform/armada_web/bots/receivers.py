"""Keeping storage and ownership right however a row is deleted (service, admin or shell).

- A user about to be deleted: each bot they created is forgotten (retired, code and logs gone),
  unless a shared team that others are still in manages it: it stays with the team.
- A version deleted: its archive and its validation game's replay are removed from storage once the
  deletion is committed.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, pre_delete
from django.dispatch import receiver

from armada_web.bots.models import BotVersion
from armada_web.bots.services import creator_deleted


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL)
def forget_bots_of_deleted_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    for bot in instance.bots.select_related("team"):
        creator_deleted(bot=bot, user=instance)


@receiver(post_delete, sender=BotVersion)
def delete_archive_of_deleted_version(sender: Any, instance: BotVersion, **kwargs: Any) -> None:
    for field in (instance.archive, instance.replay):
        if field.name:
            transaction.on_commit(partial(field.storage.delete, str(field.name)), robust=True)
