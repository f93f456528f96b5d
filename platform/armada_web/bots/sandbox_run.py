"""Playing a validation game in the Docker sandbox: the uploaded bot against a starter bot.

A plain function (no Celery, no rows): `validation_game` plays the uploaded archive at seat 1
against a starter at seat 2 through the platform's one match runner (`matches.runner.play`)
and reports what the uploaded bot did. Anything that is the platform's fault raises
PlatformFailure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from armada.botspec import starter_file
from armada.games.registry import get_game
from armada_web.bots.uploads import check_upload
from armada_web.matches.runner import PlatformFailure, play

#: The starter the uploaded bot plays against, per game.
OPPONENT = {"galaxy": "random", "mothership": "balanced"}
#: Bytes of the bot's stderr kept with the version (the end of it).
LOG_KEEP = 16 * 1024

__all__ = ["PlatformFailure", "ValidationReport", "game_config", "validation_game"]


@dataclass
class ValidationReport:
    """What the uploaded bot (seat 1) did: status and detail (protocol.md), log, its name and orders."""

    status: str
    detail: str
    log: str
    name: str
    orders: dict[str, Any] | None
    engine_version: str


def game_config(game: str) -> dict[str, Any]:
    if game == "galaxy":
        return {"max_turns": settings.ARMADA_GALAXY_VALIDATION_TURNS}
    return {}


def validation_game(game: str, archive: bytes, bot_name: str, version_id: int, seed: int) -> ValidationReport:
    """Play the validation game of `archive` (a stored bot archive) and report on seat 1."""
    name = OPPONENT[game]
    opponent = check_upload("main.py", starter_file(name, game).read_bytes()).archive
    seats = {1: (bot_name, archive), 2: (f"builtin:{name}", opponent)}
    outcome = play(f"validation-{version_id}", game, seed, seats, config=game_config(game), purpose="validation")
    mine, theirs = outcome.players
    if theirs.status != "ok" and mine.status == "ok":
        raise PlatformFailure(f"the reference bot failed ({theirs.status}: {theirs.detail})")
    orders = None
    if game == "mothership" and mine.status == "ok":
        orders = outcome.replay["steps"][0]["answers"]["1"]
    return ValidationReport(
        status=mine.status, detail=mine.detail, log=mine.log[-LOG_KEEP:], name=mine.name, orders=orders,
        engine_version=str(outcome.replay.get("engine_version") or get_game(game).engine_version),
    )
