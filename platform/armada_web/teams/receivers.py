"""Every user has a personal team, made when their account is (sign-up, the admin, the shell);
a deleted account's memberships end with it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_save, pre_delete
from django.dispatch import receiver

from armada_web.teams.services import end_memberships, personal_team


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def make_personal_team(sender: Any, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
    if created and not raw:
        personal_team(user=instance)


@receiver(pre_delete, sender=settings.AUTH_USER_MODEL)
def end_memberships_of_deleted_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    end_memberships(user=instance)
