"""A season's entries: who may enter (its entry rule), frozen at the close, the Mothership Down
result, and the final standings.

The writes run inside the caller's transaction with the season's row locked (seasons.services).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Model, Q, QuerySet

from armada.games.mothership.league import Race, league
from armada_web.accounts.queries import demo_accounts
from armada_web.bots.models import BotVersion
from armada_web.games import spec
from armada_web.ladder.league import active_races
from armada_web.ladder.logic import ratings
from armada_web.ladder.matchmaking import ranked_versions
from armada_web.ladder.models import LeagueEntry, Rating
from armada_web.seasons.logic import finals
from armada_web.seasons.logic import teams as teams_logic
from armada_web.seasons.models import Entry, EntryRule, Season, Standing
from armada_web.seasons.signals import standings_rewritten
from armada_web.teams.models import Membership, Team
from armada_web.web.errors import Conflict

Rows = TypeVar("Rows", bound=Model)


def admitted(*, season: Season, rows: QuerySet[Rows], owner: str = "bot__owner") -> QuerySet[Rows]:
    """The season's entry rule, the one place it is applied: `rows` kept to those whose owner may
    enter (`owner` is the path to the owning user: "bot__owner" for versions, "version__bot__owner"
    for ladder and league rows, "" for users themselves). Everyone: all of them; not staff or demo:
    none of an account with is_staff or is_superuser or marked as a demo one (accounts'
    DEMO_GROUP); invited: only those of the season's invited accounts."""
    rule = EntryRule(season.entry_rule)
    if rule == EntryRule.EVERYONE:
        return rows
    path = f"{owner}__" if owner else ""
    if rule == EntryRule.NOT_STAFF_OR_DEMO:
        return rows.exclude(Q(**{f"{path}is_staff": True}) | Q(**{f"{path}is_superuser": True})
                            | Q(**{f"{path}pk__in": demo_accounts().values("pk")}))
    return rows.filter(**{f"{path}pk__in": season.invited_users.values("pk")})


def may_enter(*, season: Season, user: User) -> bool:
    """Whether the entry rule lets `user`'s bots enter `season` (admitted, for one account)."""
    return admitted(season=season, rows=User.objects.filter(pk=user.pk), owner="").exists()


def size_limit(season: Season) -> int:
    """The most members an entered team of `season` may have: its own limit, never above the site's."""
    site = int(settings.ARMADA.team_max_members)
    return min(season.team_max_members, site) if season.team_max_members else site


def usernames_by_team(team_ids: list[int]) -> dict[int, list[str]]:
    """Each team's members' usernames now, in the order they joined."""
    out: dict[int, list[str]] = {}
    for start in range(0, len(team_ids), 900):  # a bounded IN list per query (SQLite's variables)
        rows = (Membership.objects.members().filter(team_id__in=team_ids[start:start + 900])
                .values_list("team_id", "user__username"))
        for team_id, username in rows:
            out.setdefault(team_id, []).append(username)
    return out


def _team_rules(season: Season, versions: list[BotVersion]) -> tuple[list[BotVersion], dict[int, list[str]]]:
    """The versions (in seed order) whose teams the season's team rules let in, and every team's members."""
    order = [v.bot.team_id for v in versions]
    members = usernames_by_team(sorted(set(order)))
    if not season.team_max_members and not season.one_team_per_person:
        return versions, members
    taken = teams_logic.admissible(order, members, limit=size_limit(season) if season.team_max_members else None,
                                   one_team_per_person=season.one_team_per_person)
    return [v for v in versions if v.bot.team_id in taken], members


def _entry(season: Season, version: BotVersion, seed: int, rating: Rating | None,
           members: dict[int, list[str]]) -> Entry:
    bot = version.bot
    team: Team = bot.team
    played = rating is not None and rating.listed
    return Entry(season=season, version=version, version_ref=version.pk, version_number=version.number, bot=bot,
                 bot_ref=bot.pk, bot_name=bot.name, owner_id=bot.owner_id, team=team, team_ref=team.pk,
                 team_name=team.name, members=members.get(team.pk, []), seed=seed,
                 ladder_mu=rating.mu if played and rating else None,
                 ladder_sigma=rating.sigma if played and rating else None,
                 ladder_games=rating.games if rating else 0)


@dataclass(frozen=True)
class Seeding:
    """Who would enter a season if it closed now (`seeding`)."""

    #: The versions that enter, in seed order, and the admitted ones the team rules leave out.
    entering: list[BotVersion]
    left_out: list[BotVersion]
    #: Their ratings (a rated game's) and every team's members now.
    ratings: dict[int, Rating]
    members: dict[int, list[str]]

    def named_left_out(self) -> list[str]:
        """The versions left out as "BOT (TEAM)" (every bot's team is public, as its page shows)."""
        return [f"{v.bot.name} ({v.bot.team.name})" for v in self.left_out]


def seeding(season: Season) -> Seeding:
    """The versions that would enter `season` if it closed now, in seed order: each bot's playing
    version when its owner may enter (admitted) and its team passes the season's team rules
    (`logic.teams.admissible`, best placed first), ordered by the ladder (as it lists them: mu - 3
    sigma, unlisted versions after, oldest first) or the league (its position among the admitted);
    and those its team rules leave out (an organiser's trial: a bot dropped by the one-team rule went
    unsaid)."""
    versions, rows = _seeded(season)
    taken, members = _team_rules(season, versions)
    kept = {v.pk for v in taken}
    return Seeding(taken, [v for v in versions if v.pk not in kept], rows, members)


def would_enter(season: Season) -> tuple[list[BotVersion], dict[int, Rating], dict[int, list[str]]]:
    """`seeding`'s versions that enter, their ratings and every team's members."""
    seeded = seeding(season)
    return seeded.entering, seeded.ratings, seeded.members


def _seeded(season: Season) -> tuple[list[BotVersion], dict[int, Rating]]:
    """The admitted versions in seed order (`would_enter`, before the team rules), with their ratings."""
    if spec(season.game).rated:
        versions = list(admitted(season=season, rows=ranked_versions(season.game).select_related("bot__team")))
        rows = {r.version_id: r for r in Rating.objects.filter(version__in=versions)}

        def ladder_key(v: BotVersion) -> tuple[int, float, object, int]:
            row = rows.get(v.pk)
            if row is None or not row.listed:  # as the ladder lists them (a new version: its predecessor's place)
                return (1, 0.0, v.created, v.pk)
            return (0, -ratings.displayed(ratings.Skill(row.mu, row.sigma)), v.created, v.pk)

        versions.sort(key=ladder_key)
    else:
        versions, rows = list(admitted(season=season, rows=active_races().select_related("bot__team"))), {}
        positions = dict(LeagueEntry.objects.filter(version__in=versions).values_list("version_id", "position"))
        versions.sort(key=lambda v: (positions.get(v.pk, len(versions) + 1), v.created, v.pk))
    return versions, rows


def freeze(*, season: Season) -> Seeding:
    """The versions that would enter the season now (`seeding`) become its entries, seeded in that order,
    each naming its team and the members it has now (frozen until the results are final: team_rules);
    returns the seeding (its `left_out` too)."""
    seeded = seeding(season)
    made = [_entry(season, v, seed, seeded.ratings.get(v.pk), seeded.members)
            for seed, v in enumerate(seeded.entering, start=1)]
    Entry.objects.bulk_create(made, batch_size=500)
    return seeded


def league_result(season: Season) -> None:
    """Mothership Down: the league of the frozen entries (MD-10, played in-engine from their
    orders) is the result: each entry's points, battles and place. An entry whose version is
    gone has no orders; it is placed after the others."""
    entries = list(season.entries.select_related("version").order_by("seed"))
    racing = [e for e in entries if e.version is not None and e.version.orders]
    table = league([Race(e.bot_name, e.version.orders or {}, submitted=(e.version.created, e.version_ref), key=e.pk)
                    for e in racing if e.version is not None])
    by_id = {e.pk: e for e in entries}
    for row in table:
        entry = by_id[row.race.key]
        entry.place, entry.points, entry.games = row.position, row.points, row.played
        entry.wins, entry.draws, entry.losses = row.wins_destruction + row.wins_damage, row.draws, row.losses
    rest = [e for e in entries if e not in racing]
    for place, entry in enumerate(rest, start=len(table) + 1):
        entry.place, entry.points, entry.games = place, 0, 0
    Entry.objects.bulk_update(entries, ["place", "points", "games", "wins", "draws", "losses"], batch_size=500)


def skill_of(entry: Entry) -> ratings.Skill:
    """An entry's finals rating (its ladder rating before the finals began, else the prior)."""
    if entry.mu is not None and entry.sigma is not None:
        return ratings.Skill(entry.mu, entry.sigma)
    if entry.ladder_mu is not None and entry.ladder_sigma is not None:
        return ratings.Skill(entry.ladder_mu, entry.ladder_sigma)
    return ratings.initial_rating()


def order(entries: list[Entry]) -> list[Entry]:
    """Entries in the order of the standings: finals.ordered (later stage, score, seed)."""
    by_id = {e.pk: e for e in entries}
    return [by_id[s.id] for s in finals.ordered([finals.Standing(e.pk, e.stage, skill_of(e), e.seed)
                                                 for e in entries])]


def write_standings(*, season: Season) -> int:
    """Store the final standings (once: Conflict if they exist); returns the rows written."""
    if Standing.objects.filter(season=season).exists():
        raise Conflict(f"season {season.slug} has its final standings already; they never change")
    rated = spec(season.game).rated
    entries = list(season.entries.all())
    if not rated and any(e.place is None for e in entries):
        league_result(season)
        entries = list(season.entries.all())
    if rated and not any(e.games for e in entries):
        _unrated_by_the_finals(entries)
    ranked = order(entries) if rated else sorted(entries, key=lambda e: (e.place or 0, e.seed))
    rows = []
    for place, entry in enumerate(ranked, start=1):
        entry.place = place
        score = round(finals.score(skill_of(entry)), 3) if rated else float(entry.points or 0)
        rows.append(Standing(season=season, place=place, bot_ref=entry.bot_ref, bot_name=entry.bot_name,
                             owner_id=entry.owner_id, team_ref=entry.team_ref, team_name=entry.team_name,
                             members=entry.members, version_ref=entry.version_ref,
                             version_number=entry.version_number, score=score, games=entry.games,
                             stage=entry.stage))
    Standing.objects.bulk_create(rows, batch_size=500)
    Entry.objects.bulk_update(ranked, ["place"], batch_size=500)
    return len(rows)


def _unrated_by_the_finals(entries: list[Entry]) -> None:
    """No finals game was played (fewer than two entries, or the season finished before its first
    game): the finals ratings the entries started with (`finals.start_rating`: the prior, or a
    sigma raised for the finals to correct) were never tested, so they are dropped and the
    entries are read, placed and scored at their ratings frozen at the close (`skill_of`: the
    ladder's, else the prior), as a season finished before its finals began is."""
    started = [e for e in entries if e.mu is not None or e.sigma is not None]
    for entry in started:
        entry.mu = entry.sigma = None
    Entry.objects.bulk_update(started, ["mu", "sigma"], batch_size=500)


def rewrite_standings(*, season: Season) -> int:
    """A finished season's final standings written again from the entries left (staff disqualified
    one: `services.withdraw_entries`), the one change they ever see; returns the rows written.
    `signals.standings_rewritten` tells the apps above each bot's place before."""
    standings = Standing.objects.filter(season=season)
    places_before = dict(standings.values_list("bot_ref", "place"))
    standings.delete()
    written = write_standings(season=season)
    standings_rewritten.send(sender=Season, season=season, places_before=places_before)
    return written
