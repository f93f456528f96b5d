"""The one place `armada.referee.play_match` meets `DockerBot`: play a game of stored archives.

Plain functions (no Celery, no rows written): `play` unpacks both seats' archives, runs the
game with one `DockerBot` per seat and the game's limits from the settings, and returns the
SDK's `MatchOutcome`. Anything that is the platform's fault raises `PlatformFailure`; whatever a
bot does is in the outcome (a status per seat). Ranked and challenge matches (matches.execution)
and validation games (bots.validation) all play through here.

The sandbox (Docker engine, bot image) is checked when a worker process starts
(`check_sandbox`, from the Celery app) and again only after a failure, not before every match.
A task asks `sandbox_ready()` before it claims its job: a worker whose engine is gone hands the
task back instead of claiming (and voiding) it, and `SandboxDown` says a game could not even
start its bots, so the job goes back to the queue rather than being void.
"""

from __future__ import annotations

import errno
import logging
import tempfile
import time
from contextlib import ExitStack
from typing import Any

from django.conf import settings

from armada.botspec import BotSpecError
from armada.games.base import ConfigError
from armada.referee.connection import BotConnection
from armada.referee.match import MatchOutcome, play_match
from armada_sandbox import DockerBot, SandboxUnavailable, check_ready
from armada_web.archives import unpack

__all__ = ["ArchiveUnpackable", "PlatformFailure", "SandboxDown", "check_sandbox", "play", "sandbox_ready"]

logger = logging.getLogger(__name__)


class PlatformFailure(Exception):
    """The game could not be played for a reason that is not a bot's (Docker, image, storage, engine)."""


class SandboxDown(PlatformFailure):
    """The sandbox could not start the game's bots (no engine, no image, no slot): nothing was
    played, so the job is given back to the queue, not void."""


#: After a failed check, `sandbox_ready` asks the engine again only this many seconds later.
RECHECK_S = 5.0


class ArchiveUnpackable(PlatformFailure):
    """A seat's stored archive does not unpack (stored before the upload check refused such
    names): the archive's fault, not the platform's. A validation makes its version `invalid`;
    a match treats it as any other failure to play (void)."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(f"the stored archive of seat {seat} could not be unpacked ({reason})")
        self.seat = seat
        self.reason = reason


#: Errors of unpacking that come from the names in the archive, not from the disk.
_NAME_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.EILSEQ,
                          errno.EINVAL})


class _Sandbox:
    """Whether this process last found the sandbox ready (None: not checked yet), and when."""

    ready: bool | None = None
    checked: float = 0.0


def check_sandbox() -> str:
    """Check the Docker engine and the bot image now; remembers the answer. Raises SandboxDown."""
    _Sandbox.checked = time.monotonic()
    try:
        detail = check_ready(image=settings.ARMADA.bot_image)
    except SandboxUnavailable as exc:
        _Sandbox.ready = False
        raise SandboxDown(f"the sandbox is unavailable: {exc}") from None
    _Sandbox.ready = True
    return detail


def sandbox_ready() -> bool:
    """Whether this process may take a game now: the last check passed, or a new one does (asked
    at most every RECHECK_S seconds after a failure)."""
    if _Sandbox.ready:
        return True
    if _Sandbox.ready is False and time.monotonic() - _Sandbox.checked < RECHECK_S:
        return False
    try:
        check_sandbox()
    except SandboxDown as exc:
        logger.warning("%s", exc)
        return False
    return True


def play(*, match_id: int | str, game: str, seed: int, seats: dict[int, tuple[str, bytes]],
         config: dict[str, Any], purpose: str = "match") -> MatchOutcome:
    """Play match `match_id` (its containers' label) of `game` with engine `config`: `seats` maps
    1 and 2 to (bot name, stored archive). `purpose` ("match" or "validation") says which sandbox
    slots the bots may take (docs/sandbox.md); a worker with warm slots (ARMADA_SANDBOX_WARM_PAIRS)
    starts them in its warm containers."""
    if not _Sandbox.ready:
        check_sandbox()
    limits = settings.ARMADA.game(game)
    labels = {"armada.match": str(match_id)}
    with ExitStack() as stack:
        bots: dict[int, BotConnection] = {}
        for seat, (name, archive) in sorted(seats.items()):
            # An opaque name: a cold container's bot sees its code folder's host path.
            code_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="armada-code-"))
            try:
                unpack(archive=archive, dest=code_dir)
            except BotSpecError as exc:
                raise ArchiveUnpackable(seat, str(exc)) from None
            except OSError as exc:
                if exc.errno in _NAME_ERRNOS:
                    raise ArchiveUnpackable(seat, f"{exc.strerror}: {exc.filename}") from None
                raise PlatformFailure(f"the stored archive of seat {seat} could not be unpacked ({exc})") from None
            except Exception as exc:
                raise PlatformFailure(f"the stored archive of seat {seat} could not be unpacked ({exc})") from None
            bots[seat] = DockerBot(code_dir, "main.py", label=name, limits=limits.sandbox,
                                   labels={**labels, "armada.seat": str(seat)}, image=settings.ARMADA.bot_image,
                                   purpose=purpose)
        try:
            outcome = play_match(game, bots, seed=seed, config=config, limits=limits.times)
        except SandboxUnavailable as exc:  # (play_match raises it only while starting the bots)
            _Sandbox.ready = False
            raise SandboxDown(f"the sandbox is unavailable: {exc}") from None
        except (ConfigError, ValueError, RuntimeError) as exc:
            raise PlatformFailure(f"the engine failed: {exc}") from None
        logger.info("match %s played; sandbox starts: %s", match_id,
                    ", ".join(f"seat {n} {'warm' if getattr(b, 'was_warm', False) else 'cold'}"
                              for n, b in sorted(bots.items())))
    return outcome
