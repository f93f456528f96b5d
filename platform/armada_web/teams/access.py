"""Who is in a team now: the one place the apps above ask (bots' access, the API, the pages).
Membership is read on every request, so a member who leaves loses access at once, whatever
signed them in (a session or one of their API tokens)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, QuerySet

from armada_web.teams.models import Membership
from armada_web.web.errors import Forbidden


def _signed_in(user: Any) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False))


def is_member(*, user: Any, team_id: int | None) -> bool:
    """`user` is in the team `team_id` now."""
    if not _signed_in(user) or team_id is None:
        return False
    return Membership.objects.current().filter(team_id=team_id, user_id=user.pk).exists()


def check_member(*, user: Any, team_id: int | None, refusal: str = "you are not a member of this team") -> None:
    """Forbidden unless `user` is in the team now."""
    if not is_member(user=user, team_id=team_id):
        raise Forbidden(refusal)


def team_ids(*, user: Any) -> QuerySet[Membership, int]:
    """The ids of the teams `user` is in now (a subquery: `filter(team__in=team_ids(user=u))`)."""
    if not _signed_in(user):
        return Membership.objects.none().values_list("team_id", flat=True)
    return Membership.objects.current().filter(user_id=user.pk).values_list("team_id", flat=True)


def removed_from_ids(*, user: Any) -> QuerySet[Membership, int]:
    """The ids of the teams whose latest membership of `user` ended in their removal (a subquery):
    what they did as its member is no longer theirs to act on (an event entry). One who rejoined
    after a removal and then left is judged by the leaving (a review)."""
    if not _signed_in(user):
        return Membership.objects.none().values_list("team_id", flat=True)
    later = Membership.objects.filter(user_id=user.pk, team_id=OuterRef("team_id"), pk__gt=OuterRef("pk"))
    return (Membership.objects.filter(user_id=user.pk, removed=True).exclude(Exists(later))
            .values_list("team_id", flat=True))


def shows_join_key(*, user: Any, team: Any) -> bool:
    """`user` may see the team's join key (its page's link, the API's `join_key`): a member of a
    shared team that is not archived (an archived team takes no one: restore it first)."""
    return not team.personal and team.archived is None and is_member(user=user, team_id=team.pk)


def was_member(*, user: Any, team_id: int) -> bool:
    """`user` is or was in the team (its history shows to them)."""
    return _signed_in(user) and Membership.objects.filter(team_id=team_id, user_id=user.pk).exists()


def restore_refusal(*, user: Any, team_id: int) -> str:
    """Why `user` may not restore the archived team `team_id` ("" when they may): a member may; a
    team without members, a former member who left on their own (and rejoins it); never one who
    was removed (a removal is the team's decision), nor anyone else while it has members."""
    if is_member(user=user, team_id=team_id):
        return ""
    latest = (Membership.objects.filter(team_id=team_id, user_id=user.pk).order_by("-joined", "-pk").first()
              if _signed_in(user) else None)
    if latest is None:
        return "only a member or former member of this team can restore it"
    if latest.removed:
        return "you were removed from this team: only its members can restore it"
    if Membership.objects.current().filter(team_id=team_id).exists():
        return "this team has members: one of them can restore it"
    return ""
