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
from django.db.models import F, QuerySet

from armada.games.registry import get_game
from armada_web.bots import services
from armada_web.bots.models import BotVersion, Game, VersionStatus
from armada_web.ladder.league import rebuild_league


def current_engine(game: str) -> str:
    return str(get_game(game).engine_version)[:40]


def stale_versions() -> QuerySet[BotVersion]:
    """Active, valid versions validated with another engine version than the current one."""
    stale = BotVersion.objects.none()
    for game in Game.values:
        stale |= (BotVersion.objects.filter(bot__game=game, status=VersionStatus.VALID, bot__active_version=F("pk"),
                                            bot__retired__isnull=True, bot__disabled=False)
                  .exclude(engine_version=current_engine(game)))
    return stale.select_related("bot").order_by("pk")


def revalidate_active() -> dict[str, int]:
    """Re-queue the stale versions' validation and rebuild the league; returns counts."""
    with transaction.atomic():
        versions = list(stale_versions())
        queued = sum(services.revalidate(v) for v in versions)
        league = rebuild_league()
    return {"queued": queued, "league_races": league["races"]}
