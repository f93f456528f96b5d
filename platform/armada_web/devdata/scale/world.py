"""The people and bots of a seeded season: users with several bots, versions with hidden skills.

Everything is drawn from one `random.Random`, so a seed gives the same world. A Galaxy bot has 1
to 5 versions uploaded over its life; each valid one plays from its upload until the next valid
one arrives, and the newest valid one is active at the season's end. A version's hidden skill
is its bot's talent plus what each upload added; matches are drawn from these skills
(`season.py`), so the ladder the ratings make can be compared with them. Mothership Down races
have 1 to 3 versions, each with random legal orders (the SDK's `random_orders`).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User

from armada.games.mothership import random_orders
from armada.games.rng import Rng
from armada_web.bots.models import Bot, BotVersion, VersionStatus
from armada_web.devdata.scale.bulk import Ids
from armada_web.games import spec

SEASON = timedelta(days=90)
#: How many Galaxy bots a user holds (1..5, the default per-game limit), and how often.
BOTS_PER_USER = (1, 2, 3, 4, 5)
BOTS_PER_USER_WEIGHTS = (35, 25, 20, 12, 8)
VERSIONS_WEIGHTS = (30, 25, 20, 15, 10)  # 1..5 versions
INVALID_SHARE = 0.15  # of the versions before the newest
ADJECTIVES = ("swift", "silent", "red", "iron", "lucky", "brave", "dark", "quantum", "polar", "rapid", "grim",
              "bright", "lone", "wild", "steady", "clever", "hollow", "solar", "lunar", "vivid")
NOUNS = ("comet", "fleet", "nova", "raven", "probe", "titan", "viper", "orbit", "pulsar", "drake", "falcon",
         "nebula", "quasar", "lancer", "corsair", "warden", "herald", "meteor", "zephyr", "kraken")


@dataclass(eq=False)
class Version:
    id: int
    bot: GalaxyBot
    number: int
    created: datetime
    valid: bool
    skill: float


@dataclass(eq=False)
class GalaxyBot:
    id: int
    owner_id: int
    name: str
    created: datetime
    versions: list[Version] = field(default_factory=list)

    def playing_at(self, when: datetime) -> Version | None:
        """The newest valid version uploaded by `when` (the one matchmaking would pick)."""
        best = None
        for version in self.versions:
            if version.valid and version.created <= when:
                best = version
        return best

    @property
    def active(self) -> Version:
        best = self.playing_at(datetime.max.replace(tzinfo=self.created.tzinfo))
        assert best is not None  # the newest version is always valid
        return best


@dataclass
class World:
    start: datetime
    end: datetime
    users: list[dict[str, Any]] = field(default_factory=list)
    bots: list[dict[str, Any]] = field(default_factory=list)
    versions: list[dict[str, Any]] = field(default_factory=list)
    galaxy: list[GalaxyBot] = field(default_factory=list)
    races: int = 0


def _name(rng: random.Random, number: int) -> str:
    return f"{rng.choice(ADJECTIVES)}-{rng.choice(NOUNS)}-{number}"


def _digest(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()


def build(*, rng: random.Random, ids: Ids, bots: int, races: int, now: datetime, galaxy: str,
          league: str) -> World:
    """Users, `bots` Galaxy bots with their versions and `races` Mothership Down races (as rows)."""
    world = World(start=now - SEASON, end=now - timedelta(minutes=5))
    span = (world.end - world.start).total_seconds()
    password = make_password(None)  # unusable: nobody signs in as a seeded user
    owners: list[tuple[int, datetime]] = []
    made = 0
    while made < bots:
        count = min(rng.choices(BOTS_PER_USER, BOTS_PER_USER_WEIGHTS)[0], bots - made)
        user_id = ids.take(User)
        # Bots arrive all season, more of them early; nobody's first bot comes in the last week.
        joined = world.start + timedelta(seconds=span * 0.92 * rng.random() ** 1.6)
        world.users.append({"id": user_id, "username": f"pilot-{user_id}", "password": password,
                            "date_joined": joined, "is_active": True, "first_name": "", "last_name": "",
                            "email": "", "is_staff": False, "is_superuser": False})
        owners.append((user_id, joined))
        for _ in range(count):
            created = joined + timedelta(seconds=(world.end - joined).total_seconds() * 0.3 * rng.random())
            world.galaxy.append(_galaxy_bot(rng, ids, world, user_id, created, galaxy))
        made += count
    for index in range(races):
        user_id, joined = owners[index % len(owners)] if index < 5 * len(owners) else _new_owner(world, ids)
        _race(rng, ids, world, user_id, joined, league)
    world.races = races
    return world


def _new_owner(world: World, ids: Ids) -> tuple[int, datetime]:
    """A user for races once every other holds five (few bots, many races)."""
    user_id = ids.take(User)
    world.users.append({**world.users[0], "id": user_id, "username": f"pilot-{user_id}"})
    return user_id, world.users[0]["date_joined"]


def _galaxy_bot(rng: random.Random, ids: Ids, world: World, owner_id: int, created: datetime,
                game: str) -> GalaxyBot:
    bot_id = ids.take(Bot)
    bot = GalaxyBot(bot_id, owner_id, _name(rng, bot_id), created)
    count = rng.choices(range(1, 6), VERSIONS_WEIGHTS)[0]
    talent = rng.gauss(25.0, 6.0)
    life = (world.end - created).total_seconds()
    times = sorted([created] + [created + timedelta(seconds=life * rng.random()) for _ in range(count - 1)])
    skill = talent
    for number, at in enumerate(times, start=1):
        if number > 1:
            skill += rng.gauss(0.8, 2.0)  # an upload usually helps a little, sometimes hurts
        valid = number == count or rng.random() >= INVALID_SHARE
        version = Version(ids.take(BotVersion), bot, number, at, valid, skill)
        bot.versions.append(version)
        world.versions.append(_version_row(version.id, bot_id, number, at, valid, game))
    world.bots.append({"id": bot_id, "owner_id": owner_id, "game": game, "name": bot.name, "created": created,
                       "description": rng.choice(("", "", "Greedy expansion, probes late.",
                                                  "<b>not bold</b> & <script>alert(1)</script>")),
                       "active_version_id": bot.active.id, "pinned": False, "retired": None, "disabled": False,
                       "disabled_reason": ""})
    return bot


def _version_row(version_id: int, bot_id: int, number: int, at: datetime, valid: bool, game: str,
                 **extra: Any) -> dict[str, Any]:
    engine = str(spec(game).engine.engine_version)[:40]
    return {"id": version_id, "bot_id": bot_id, "number": number, "archive": "",
            "sha256": _digest(bot_id, number), "size": 1200 + number * 37, "files": 1,
            "status": VersionStatus.VALID if valid else VersionStatus.INVALID,
            "detail": "" if valid else "crashed: the bot exited with status 1 during turn 3",
            "log": "", "engine_version": engine, "attempts": 1, "created": at, "queued": at,
            "started": at + timedelta(seconds=2), "finished": at + timedelta(seconds=9), **extra}


def _race(rng: random.Random, ids: Ids, world: World, owner_id: int, joined: datetime, game: str) -> None:
    bot_id = ids.take(Bot)
    name = _name(rng, bot_id)
    created = joined + timedelta(seconds=(world.end - joined).total_seconds() * 0.5 * rng.random())
    count = rng.choices((1, 2, 3), (60, 30, 10))[0]
    at = created
    version_id = 0
    race_name = f"{rng.choice(NOUNS).title()} {rng.choice(('Legion', 'Armada', 'Swarm', 'Choir', 'Host'))}"
    for number in range(1, count + 1):
        version_id = ids.take(BotVersion)
        orders = random_orders(Rng(rng.randrange(2**31))).to_dict()
        world.versions.append(_version_row(version_id, bot_id, number, at, True, game, orders=orders,
                                           race_name=race_name))
        at += timedelta(seconds=(world.end - at).total_seconds() * rng.random() * 0.5)
    world.bots.append({"id": bot_id, "owner_id": owner_id, "game": game, "name": name, "created": created,
                       "description": "", "active_version_id": version_id, "pinned": False, "retired": None,
                       "disabled": False, "disabled_reason": ""})
