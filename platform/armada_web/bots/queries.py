"""Bot and version reads."""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, Q, QuerySet, Subquery

from armada_web.bots.access import can_see_private
from armada_web.bots.models import Bot, BotVersion


def bots() -> QuerySet[Bot]:
    """Every bot with what its pages and the API show, newest versions first."""
    return Bot.objects.select_related("owner", "active_version").order_by("game", "name")


def search(queryset: QuerySet[Bot], text: str) -> QuerySet[Bot]:
    """Bots whose name, description or owner's username holds `text`."""
    text = text.strip()
    if not text:
        return queryset
    return queryset.filter(
        Q(name__icontains=text) | Q(description__icontains=text) | Q(owner__username__icontains=text))


def bots_of(user: Any) -> QuerySet[Bot]:
    return bots().filter(owner=user)


def with_newest(queryset: QuerySet[Bot]) -> QuerySet[Bot]:
    """Each bot with its newest version's number and status (`newest_number`, `newest_status`; None
    without one), one subquery per row through the (bot, number) index, never every version."""
    newest = BotVersion.objects.filter(bot=OuterRef("pk")).order_by("-number")
    return queryset.annotate(newest_number=Subquery(newest.values("number")[:1]),
                             newest_status=Subquery(newest.values("status")[:1]))


def versions_of(bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("-number")


def version_for(version_id: int) -> BotVersion | None:
    """A version anyone may see (status and detail are public; logs and sources are not)."""
    return BotVersion.objects.select_related("bot", "bot__owner").filter(pk=version_id).first()


def private_version_for(user: Any, version_id: int) -> BotVersion | None:
    """A version whose private parts `user` may see (owner or staff), else None (as if absent)."""
    version = version_for(version_id)
    return version if version is not None and can_see_private(user=user, bot=version.bot) else None
