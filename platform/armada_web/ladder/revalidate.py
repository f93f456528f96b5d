"""After a change of engine version: validate the active versions again and recompute the league.

A version records the engine it was validated with (`BotVersion.engine_version`) and a match
the engine it ran on (`Match.engine_version`). `stale_versions()` are the active versions
(playing bots: not retired, not disabled) whose validation engine differs from the SDK's
current one for their game. `revalidate_active()` sends each back to `pending` (the staff's
`services.revalidate`: attempts reset, validation queued on commit) and rebuilds the
Mothership league from scratch with the new engine, in one transaction: the pending races
leave the table and each joins again (its orders asked anew, MD-11) when its validation
passes. Galaxy ratings stay (they come from finished matches, which keep their engine
version and their replays).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q, QuerySet

from armada_web.bots import services
from armada_web.bots.models import BotVersion
from armada_web.games import SPECS, spec
from armada_web.ladder.league import rebuild_league


def current_engine(game: str) -> str:
    return str(spec(game).engine.engine_version)[:40]


def stale_versions() -> QuerySet[BotVersion]:
    """Playing versions validated with another engine version than their game's current one."""
    current = Q()
    for slug in SPECS:
        current |= Q(bot__game=slug, engine_version=current_engine(slug))
    return BotVersion.objects.playing().exclude(current).select_related("bot").order_by("pk")


def revalidate_active() -> dict[str, int]:
    """Re-queue the stale versions' validation and rebuild the league; returns counts."""
    with transaction.atomic():
        versions = list(stale_versions())
        queued = sum(services.revalidate(version=v) for v in versions)
        league = rebuild_league()
    return {"queued": queued, "league_races": league["races"]}
