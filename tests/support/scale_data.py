"""Seeded sites for the scale tests: `seed_scale`'s data at a given size, plus the handles the tests use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Seeded:
    """A seeded database's landmarks."""

    size: str
    seeded: Any  # devdata.scale.seed.Seeded
    busiest: Any  # the Bot with the most matches
    owner: Any  # its owner
    opponent: Any  # the bot it met most often
    match: Any  # the newest finished ranked match
    typical: Any  # a bot of median matches (the busiest's matches are a large share of a small site's)


#: Two sizes of the same site: every bounded page must run the same queries on both.
SIZES = {"small": (12, 400, 6), "large": (60, 3000, 24)}


def seed(size: str, replays: int = 0) -> Seeded:
    from armada_web.bots.models import Bot
    from armada_web.devdata.scale.seed import seed_scale
    from armada_web.matches.models import BotRecord, HeadToHead, Match, MatchKind, MatchStatus
    from armada_web.matches.queries import busiest_bot

    bots, matches, races = SIZES[size]
    seeded = seed_scale(bots=bots, matches=matches, races=races, seed=5, replays=replays)
    busiest = Bot.objects.select_related("owner").get(pk=busiest_bot())
    rival = HeadToHead.objects.filter(bot=busiest).order_by("-games").first()
    assert rival is not None
    match = Match.objects.filter(kind=MatchKind.RANKED, status=MatchStatus.FINISHED).order_by("-id").first()
    records = list(BotRecord.objects.order_by("matches", "bot_id").values_list("bot_id", flat=True))
    typical = Bot.objects.get(pk=records[len(records) // 2])
    return Seeded(size, seeded, busiest, busiest.owner, Bot.objects.get(pk=rival.opponent_id), match, typical)
