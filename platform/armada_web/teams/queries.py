"""Reads of teams: a user's teams, a team's members now and its history."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from armada_web.teams.access import team_ids
from armada_web.teams.models import Membership, Team


def teams_of(*, user: Any) -> QuerySet[Team]:
    """The teams `user` is in now, the personal one first."""
    return Team.objects.filter(pk__in=team_ids(user=user)).order_by("-personal", "name")


def teams_with_members(*, user: Any) -> QuerySet[Team]:
    """`teams_of(user=)`, each with its members now (`current_members`, `members`' rows) fetched
    for the whole list in one query."""
    current = Membership.objects.members().select_related("user")
    return teams_of(user=user).prefetch_related(Prefetch("memberships", queryset=current, to_attr="current_members"))


def members(team: Team) -> QuerySet[Membership]:
    """The team's members now, in the order they joined."""
    return Membership.objects.members().filter(team=team).select_related("user")


def history(team: Team) -> QuerySet[Membership]:
    """Every membership that ended (who left, who was removed and by whom), the latest first."""
    return (Membership.objects.filter(team=team, left__isnull=False).select_related("user", "removed_by")
            .order_by("-left", "-id"))


def bots_of_team(team: Team) -> QuerySet[Any]:
    """The team's bots, by game and name."""
    return team.bots.order_by("game", "name")
