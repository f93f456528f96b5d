"""`seed_scale`: a season's worth of realistic data in an empty database, in one transaction.

World (`world.py`): users, Galaxy bots and Mothership Down races with their versions. History
(`history.py`): the Galaxy matches, their seats, the ratings and rating history, rated with the
ladder's own function. Then the league is built by the ladder's own `rebuild_league`. Rows go in
with COPY on PostgreSQL (`bulk.py`), bulk inserts elsewhere; the tables with a row per match get
their indexes and foreign keys back (each built or checked in one pass) once their rows are in.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from armada_web.bots.models import Bot, BotVersion
from armada_web.devdata.scale import world as world_module
from armada_web.devdata.scale.bulk import Ids, Table, loading, reset_sequences
from armada_web.devdata.scale.history import History
from armada_web.devdata.scale.replays import player
from armada_web.games import rated_games
from armada_web.ladder import league
from armada_web.ladder.models import Rating, RatingChange
from armada_web.matches.models import BotRecord, HeadToHead, Match, Participant
from armada_web.teams.services import personal_teams
from armada_web.web.errors import Conflict, Invalid

LIMIT = 10_000_000
#: Tables analysed after seeding (the planner needs their sizes to pick the indexes).
WRITTEN = (User, Bot, BotVersion, Match, Participant, Rating, RatingChange, BotRecord, HeadToHead)
#: The tables that take a row per match (or per seat): loaded with their indexes and keys set aside.
MANY = (Match, Participant, RatingChange, HeadToHead)


@dataclass
class Seeded:
    """What was written, and the hidden skill of every Galaxy version (for checks of the ladder)."""

    users: int = 0
    bots: int = 0
    versions: int = 0
    matches: int = 0
    races: int = 0
    seconds: float = 0.0
    skills: dict[int, float] = field(default_factory=dict)
    busiest_bot: int | None = None


#: progress(stage, done, total): the command draws a bar from it.
Progress = Callable[[str, int, int], Any]


def _count(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= LIMIT:
        raise Invalid(f"{what} must be a whole number from {minimum} to {LIMIT:,}, got {value!r}")
    return value


def seed_scale(*, bots: int, matches: int, races: int, seed: int = 1, force: bool = False, replays: int = 100,
               busiest_share: float = 0.05, progress: Progress | None = None) -> Seeded:
    """Fill the database with `bots` Galaxy bots, `matches` matches and a league of `races` races.

    Refuses (Conflict) a database that has users unless `force` (then it adds to what is there).
    """
    bots, matches, races = _count(bots, "bots", 2), _count(matches, "matches", 0), _count(races, "races", 0)
    replays = _count(replays, "replays", 0)
    if not 0 <= busiest_share < 1:
        raise Invalid(f"busiest_share must be from 0 to 1, got {busiest_share!r}")
    users = User.objects.count()
    if users and not force:
        raise Conflict(f"the database already has {users} user(s): seed_scale fills an empty database "
                       "(--force adds to it)")
    report = progress or (lambda stage, done, total: None)
    started = time.monotonic()
    game = rated_games()[0].slug
    rng = random.Random(seed)
    ids = Ids()
    tables = {model: Table(model) for model in WRITTEN}
    out = Seeded()
    with transaction.atomic():
        world = world_module.build(rng=rng, ids=ids, bots=bots, races=races, now=timezone.now(), galaxy=game,
                                   league=league.GAME)
        report("users, bots, versions", 0, 3)
        tables[User].write(world.users)
        teams = personal_teams(users=[(u["id"], u["username"]) for u in world.users])
        tables[Bot].write([{**bot, "team_id": teams[bot["owner_id"]]} for bot in world.bots])
        tables[BotVersion].write(world.versions)
        report("users, bots, versions", 3, 3)
        _check_now()
        history = History(world=world, rng=rng, ids=ids, game=game, busiest_share=busiest_share, play=player(game),
                        replays=replays)
        done = 0
        with loading(MANY):
            for chunk in history.chunks(matches):
                tables[Match].write(chunk.matches)
                tables[Participant].write(chunk.participants)
                tables[RatingChange].write(chunk.changes)
                done += len(chunk.matches)
                report("matches", done, matches)
            tables[Rating].write(_ratings(history))
            tables[BotRecord].write(_records(history))
            tables[HeadToHead].write(_head_to_head(history))
            report("indexes", 0, 1)
        report("indexes", 1, 1)
        report("league", 0, 1)
        built = league.rebuild_league()
        report("league", 1, 1)
        reset_sequences(WRITTEN)
        out = Seeded(users=len(world.users), bots=len(world.bots), versions=len(world.versions),
                     matches=tables[Match].written, races=built["races"],
                     skills={v.id: v.skill for b in world.galaxy for v in b.versions},
                     busiest_bot=min(world.galaxy, key=lambda b: (b.created, b.id)).id)
    _analyse()
    out.seconds = time.monotonic() - started
    return out


def _check_now() -> None:
    """From here on, check each row's foreign keys as it arrives (bots and versions name each other)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def _ratings(history: History) -> list[dict[str, Any]]:
    """Every rated version's row, and each playing version's (at its placement start when unplayed)."""
    rows = []
    for bot in history.world.galaxy:
        active = bot.active
        for version in bot.versions:
            row = history.ratings.get(version.id)
            if row is None and version is not active:
                continue
            if row is None:
                start = history.start_of(version)
                row = Rating(version_id=version.id, mu=start.mu, sigma=start.sigma)
            rows.append({"id": history.ids.take(Rating), "version_id": version.id, "mu": row.mu, "sigma": row.sigma,
                         "games": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses,
                         "faults_in_row": row.faults_in_row, "benched": row.benched,
                         "benched_reason": row.benched_reason, "last_played": row.last_played, "due": row.due,
                         "game": history.game, "playing": version is active})
    return rows


def _records(history: History) -> list[dict[str, Any]]:
    """Each bot's kept counts (matches.tallies), as the matches just written add up."""
    return [{"bot_id": bot_id, "matches": made, "wins": wins, "draws": draws, "losses": losses}
            for bot_id, (made, wins, draws, losses) in history.records.items()]


def _head_to_head(history: History) -> list[dict[str, Any]]:
    """Each bot's kept record against each opponent."""
    names = {bot.id: bot.name for bot in history.world.galaxy}
    first = history.ids.take(HeadToHead, len(history.pairs))
    return [{"id": first + offset, "bot_id": bot_id, "opponent_id": opponent_id, "opponent_name": names[opponent_id],
             "games": wins + draws + losses, "wins": wins, "draws": draws, "losses": losses, "last_match_id": last}
            for offset, ((bot_id, opponent_id), (wins, draws, losses, last)) in enumerate(history.pairs.items())]


def _analyse() -> None:
    """Table statistics for the planner (and, outside a transaction on PostgreSQL, a vacuum for
    index-only scans)."""
    names = [model._meta.db_table for model in WRITTEN]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            verb = "ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)"
            for name in names:
                cursor.execute(f"{verb} {connection.ops.quote_name(name)}")
        else:
            cursor.execute("ANALYZE")
