"""The one place `armada.referee.play_match` meets `DockerBot`: play a platform match.

Plain functions (no Celery, no rows written): `play` unpacks both seats' archives, runs the
game with one `DockerBot` per seat and the per-game limits, and returns the SDK's
`MatchOutcome`. Anything that is the platform's fault raises `PlatformFailure`; whatever a bot
does is in the outcome (status per seat). Ranked and challenge matches (matches.tasks) and
validation games (bots.sandbox_run) all play through here.
"""

from __future__ import annotations

import json
import logging
import tempfile
from contextlib import ExitStack
from typing import Any

from django.conf import settings

from armada.games.base import ConfigError
from armada.referee.connection import BotConnection
from armada.referee.match import MatchOutcome, play_match
from armada_sandbox import DockerBot, SandboxUnavailable, check_ready
from armada_web.bots.uploads import unpack
from armada_web.ops.limits import game_limits

__all__ = ["PlatformFailure", "check_docker", "match_config", "play"]

logger = logging.getLogger(__name__)


class PlatformFailure(Exception):
    """The game could not be played for a reason that is not a bot's (Docker, image, storage, engine)."""


def check_docker() -> None:
    """Raise PlatformFailure unless the Docker engine answers and the bot image is there."""
    try:
        check_ready(settings.DOCKER_BOT_IMAGE)
    except SandboxUnavailable as exc:
        raise PlatformFailure(f"the sandbox is unavailable ({exc})") from None


def match_config(game: str) -> dict[str, Any]:
    """The engine config of platform matches of `game` (settings; {} = the rule book's)."""
    if game != "galaxy":
        return {}
    try:
        config = json.loads(settings.ARMADA_GALAXY_MATCH_CONFIG)
    except ValueError as exc:
        raise PlatformFailure(f"ARMADA_GALAXY_MATCH_CONFIG is not JSON ({exc})") from None
    if not isinstance(config, dict):
        raise PlatformFailure("ARMADA_GALAXY_MATCH_CONFIG must be a JSON object")
    return config


def play(match_id: int | str, game: str, seed: int, seats: dict[int, tuple[str, bytes]],
         config: dict[str, Any] | None = None, purpose: str = "match") -> MatchOutcome:
    """Play match `match_id` (its containers' label): `seats` maps 1 and 2 to (bot name, stored
    archive); `config` defaults to the platform's match configuration of the game. `purpose`
    ("match" or "validation") says which sandbox slots the bots may take (docs/sandbox.md);
    a worker with warm slots (ARMADA_SANDBOX_WARM_PAIRS) starts them in its warm containers."""
    check_docker()
    config = match_config(game) if config is None else config
    try:
        times, sandbox = game_limits(game)
    except ValueError as exc:
        raise PlatformFailure(str(exc)) from None
    labels = {"armada.match": str(match_id)}
    with ExitStack() as stack:
        bots: dict[int, BotConnection] = {}
        for seat, (name, archive) in sorted(seats.items()):
            # An opaque name: a cold container's bot sees its code folder's host path.
            code_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="armada-code-"))
            try:
                unpack(archive, code_dir)
            except Exception as exc:
                raise PlatformFailure(f"the stored archive of seat {seat} could not be unpacked ({exc})") from None
            bots[seat] = DockerBot(code_dir, "main.py", label=name, limits=sandbox,
                                   labels={**labels, "armada.seat": str(seat)}, image=settings.DOCKER_BOT_IMAGE,
                                   purpose=purpose)
        try:
            outcome = play_match(game, bots, seed=seed, config=config, limits=times)
        except SandboxUnavailable as exc:  # a bot the sandbox could not start: not the bot's fault
            raise PlatformFailure(f"the sandbox is unavailable ({exc})") from None
        except (ConfigError, ValueError, RuntimeError) as exc:
            raise PlatformFailure(f"the engine failed: {exc}") from None
        logger.info("match %s played; sandbox starts: %s", match_id,
                    ", ".join(f"seat {n} {'warm' if getattr(b, 'was_warm', False) else 'cold'}"
                              for n, b in sorted(bots.items())))
    return outcome
