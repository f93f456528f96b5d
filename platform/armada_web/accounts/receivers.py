"""A new password revokes every API token, however it was set: the account page, a reset link,
the admin or `manage.py changepassword` (the account may have been taken over).

Django marks a password set by `set_password` in `User._password` until the save that stores it
(its own hook for password validators); a hash upgraded at log-in is not marked, so it revokes
nothing."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models.signals import post_save
from django.dispatch import receiver

from armada_web.accounts import services


@receiver(post_save, sender=User, dispatch_uid="armada-new-password-revokes-tokens")
def new_password_revokes_tokens(sender: type[User], instance: User, created: bool, raw: bool = False,
                                **kwargs: Any) -> None:
    if not created and not raw and getattr(instance, "_password", None) is not None:
        services.revoke_every_token(user=instance)
