"""Playing a validation game in the Docker sandbox: the uploaded bot against a starter bot.

Plain functions (no Celery, no rows): `validation_game` unpacks an archive, runs the game
with one `DockerBot` per seat through `armada.referee.play_match`, and reports what the
uploaded bot did. Anything that is the platform's fault raises PlatformFailure.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from armada.botspec import resolve_bot
from armada.games.base import ConfigError
from armada.games.registry import get_game
from armada.referee.connection import BotConnection
from armada.referee.match import play_match
from armada_web.bots.uploads import unpack
from armada_web.ops.limits import game_limits

#: The starter the uploaded bot plays against, per game.
OPPONENT = {"galaxy": "random", "mothership": "balanced"}
#: Bytes of the bot's stderr kept with the version (the end of it).
LOG_KEEP = 16 * 1024


class PlatformFailure(Exception):
    """The validation could not run for a reason that is not the bot's (Docker, image, storage)."""


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


def check_docker() -> None:
    """Raise PlatformFailure unless the Docker engine answers and the bot image is there."""
    from armada_sandbox.docker_bot import docker_client

    try:
        client = docker_client()
        client.ping()
        client.images.get(settings.DOCKER_BOT_IMAGE)
    except Exception as exc:
        raise PlatformFailure(f"the sandbox is unavailable ({exc.__class__.__name__}: {str(exc)[:200]})") from None


def validation_game(game: str, archive: bytes, bot_name: str, version_id: int, seed: int) -> ValidationReport:
    """Play the validation game of `archive` (a stored bot archive) and report on seat 1."""
    from armada_sandbox import DockerBot

    check_docker()
    times, sandbox = game_limits(game)
    labels = {"armada.match": f"validation-{version_id}"}
    with tempfile.TemporaryDirectory(prefix="armada-validate-") as code_dir, \
            resolve_bot(f"builtin:{OPPONENT[game]}", game) as opponent:
        unpack(archive, code_dir)
        bots: dict[int, BotConnection] = {
            1: DockerBot(code_dir, "main.py", label=bot_name, limits=sandbox,
                         labels={**labels, "armada.seat": "1"}, image=settings.DOCKER_BOT_IMAGE),
            2: DockerBot(opponent.code_dir, opponent.entry, label=opponent.label, limits=sandbox,
                         labels={**labels, "armada.seat": "2"}, image=settings.DOCKER_BOT_IMAGE),
        }
        try:
            outcome = play_match(game, bots, seed=seed, config=game_config(game), limits=times)
        except (ConfigError, ValueError, RuntimeError) as exc:
            raise PlatformFailure(f"the engine failed: {exc}") from None
    mine, theirs = outcome.players
    for player in (mine, theirs):
        if player.status == "crashed" and player.detail.startswith("could not start"):
            raise PlatformFailure(f"the sandbox could not start a bot: {player.detail}")
    if theirs.status != "ok" and mine.status == "ok":
        raise PlatformFailure(f"the reference bot failed ({theirs.status}: {theirs.detail})")
    orders = None
    if game == "mothership" and mine.status == "ok":
        orders = outcome.replay["steps"][0]["answers"]["1"]
    return ValidationReport(
        status=mine.status, detail=mine.detail, log=mine.log[-LOG_KEEP:], name=mine.name, orders=orders,
        engine_version=str(outcome.replay.get("engine_version") or get_game(game).engine_version),
    )
