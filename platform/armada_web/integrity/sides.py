"""Which bots are one side for the copy and twin checks: code shared inside a team is not copied.

Two bots are one side when they have the same owner or belong to the same team, when their
owners are or were in one team together, or when the owner of one is or was a member of the
other's team (a member who left keeps what the team wrote with them: docs/site-decisions.md
D-S-20). Every other pair is two sides, and a match between them
is a finding.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from armada_web.bots.models import Bot
from armada_web.teams.models import Membership

#: What a finding's evidence says it compared.
COMPARED = "sides: a bot's owner and its team (a team's members share code)"


@dataclass(frozen=True)
class Sides:
    """The owner and team of some bots, and the teams each of their owners is or was in."""

    bots: Mapping[int, tuple[int | None, int]]
    teams_of: Mapping[int, frozenset[int]]

    def same(self, one: int, two: int) -> bool:
        """Bots `one` and `two` are one side (module docstring)."""
        owner_one, team_one = self.bots[one]
        owner_two, team_two = self.bots[two]
        if team_one == team_two or (owner_one is not None and owner_one == owner_two):
            return True
        teams_one = self.teams_of.get(owner_one or 0, frozenset())
        teams_two = self.teams_of.get(owner_two or 0, frozenset())
        return team_two in teams_one or team_one in teams_two or not teams_one.isdisjoint(teams_two)


def sides_of(bot_ids: Iterable[int]) -> Sides:
    """The sides of these bots, read in two queries."""
    bots = {pk: (owner, team) for pk, owner, team in
            Bot.objects.filter(pk__in=list(set(bot_ids))).values_list("pk", "owner_id", "team_id")}
    owners = {owner for owner, _team in bots.values() if owner is not None}
    teams: dict[int, set[int]] = defaultdict(set)
    for user, team in Membership.objects.filter(user_id__in=owners).values_list("user_id", "team_id"):
        teams[user].add(team)
    return Sides(bots, {user: frozenset(found) for user, found in teams.items()})
