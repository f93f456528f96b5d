"""A season's team rules (issue 26): a team that enters has at most the season's number of members,
a person is in at most one entered team (when the season asks), and an entered team's members are
frozen from the close until the results are final.

A team is *entered* in a season that has closed when one of its bots has an entry (the entries
are frozen at the close, `entries.freeze`); in an upcoming or open season, when one of its bots
would enter if it closed now (a playing version its entry rule admits). Joins, leaves and
removals ask `check_change` (through `teams.signals.membership_changing`, inside the change's
transaction with the team's row locked); the close applies the same rules to the entries it
freezes (`admissible_teams`), for a team that became entered after its members joined (a bot
uploaded or moved into it).

Locks, always in this order: the team's row (teams.services), the person's user row, then the
rows of the seasons not finished. A season's close locks its row, so a change either happens
before the close froze the entries or sees the season closed; two joins of one person lock
their user row, so they cannot both pass the one-team rule.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet

from armada_web.games import spec
from armada_web.ladder.league import active_races
from armada_web.ladder.matchmaking import ranked_versions
from armada_web.seasons.entries import admitted, size_limit
from armada_web.seasons.models import BEFORE_CLOSE, Entry, Season, SeasonState, state_said
from armada_web.teams.models import Membership, Team
from armada_web.web.errors import Conflict

#: States in which a season's entries are frozen and so its entered teams' members.
FROZEN = (SeasonState.CLOSED, SeasonState.FINALS)


def _would_enter(season: Season) -> QuerySet[Any]:
    """The versions that would enter `season` if it closed now (its entry rule applied)."""
    rows = ranked_versions(season.game) if spec(season.game).rated else active_races()
    return admitted(season=season, rows=rows)


def entered_team_ids(season: Season) -> QuerySet[Any, int]:
    """The ids of the teams entered in `season` (a subquery): with an entry once it has closed,
    else with a bot that would enter if it closed now."""
    if season.state in BEFORE_CLOSE:
        return _would_enter(season).values_list("bot__team_id", flat=True)
    return Entry.objects.filter(season=season, team__isnull=False).values_list("team_id", flat=True)


def is_entered(*, season: Season, team_id: int) -> bool:
    """Whether the team `team_id` is entered in `season` (entered_team_ids)."""
    if season.state in BEFORE_CLOSE:
        return bool(_would_enter(season).filter(bot__team_id=team_id).exists())
    return Entry.objects.filter(season=season, team_id=team_id).exists()


def check_change(*, team: Team, user_id: int, change: str) -> None:
    """Refuse (Conflict, nothing written) a join, leave, removal or archiving that a season's team
    rules forbid: any change to an entered team's members, and its archiving, from its season's
    close until the results are final; a join that makes an entered team larger than its season allows, or that puts a
    person in a second entered team of a season asking one team per person. Called with the
    team's row locked (teams.services); takes the person's row and the seasons' rows next."""
    # NO KEY: a close writing entries that refer to this person must not wait for this lock
    # while this change waits for the close's season row (a deadlock).
    User.objects.select_for_update(no_key=True).filter(pk=user_id).first()
    live = list(Season.objects.select_for_update().exclude(state=SeasonState.FINISHED).order_by("pk"))
    for season in live:
        if season.state in FROZEN and Entry.objects.filter(season=season, team_id=team.pk).exists():
            if change == "archive":  # its entries play on to the results: the team stays as it entered
                raise Conflict(f"{team.name} cannot be archived now: it entered season {season.name} "
                               f"({season.slug}), which is {state_said(season.state)}, and its entries play until the "
                               "results are final; archive it then")
            raise Conflict(f"the members of {team.name} are frozen: it entered season {season.name} "
                           f"({season.slug}), which is {state_said(season.state)}; members can join, leave or be "
                           "removed again once its results are final")
    if change != "join":
        return
    for season in live:
        if season.state not in BEFORE_CLOSE or not is_entered(season=season, team_id=team.pk):
            continue
        _check_size(season, team)
        if season.one_team_per_person:
            _check_one_team(season, team, user_id)


def _check_size(season: Season, team: Team) -> None:
    limit = size_limit(season)
    if season.team_max_members and Membership.objects.current().filter(team=team).count() >= limit:
        raise Conflict(f"{team.name} is entered in season {season.name} ({season.slug}), whose teams have at "
                       f"most {limit} members: it is full for this season")


def _check_one_team(season: Season, team: Team, user_id: int) -> None:
    other = (Team.objects.filter(pk__in=entered_team_ids(season), memberships__user_id=user_id,
                                 memberships__left__isnull=True).exclude(pk=team.pk).order_by("name").first())
    if other is not None:
        raise Conflict(f"you are in {other.name}, which is entered in season {season.name} ({season.slug}); "
                       "a person plays in one team of that season: leave it (or retire its bot) first")
