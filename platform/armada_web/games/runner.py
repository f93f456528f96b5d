"""The one place `armada.referee.play_match` meets `DockerBot`: play a game of stored archives.

Plain functions (no Celery, no rows written): `play` unpacks both seats' archives, runs the
game with one `DockerBot` per seat and the game's limits from the settings, and returns the
SDK's `MatchOutcome`; `sandboxed` unpacks one archive and makes sandboxed connections to it
for a caller that feeds it recorded requests itself (the integrity checks' behaviour probes).
Anything that is the platform's fault raises `PlatformFailure`; whatever a bot does is in the
outcome (a status per seat). Ranked and challenge matches (matches.execution)
and validation games (bots.validation) all play through here.

The sandbox (Docker engine, bot image) is checked when a worker process starts
(`check_sandbox`, from the Celery app) and again only after a failure, not before every match;
after a failure a game waits for it with back-off for up to ARMADA_SANDBOX_WAIT_S (an engine
restarting) before it fails. A bot the sandbox ended while it played (its container removed, the
engine stopped: `DockerBot.sandbox_fault`) makes the game a `SandboxFailure`, never a bot's loss;
so does code that cannot be placed for a passing reason (`CodeUnavailable`: storage unreadable,
the host's cache of unpacked versions changing under it).
A task asks `sandbox_ready()` before it claims its job: a worker whose engine is gone hands the
task back instead of claiming it.
"""

from __future__ import annotations

import errno
import logging
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings

from armada.botspec import BotSpecError
from armada.games.base import ConfigError
from armada.referee.connection import BotConnection
from armada.referee.match import MatchOutcome, play_match
from armada_sandbox import DockerBot, SandboxUnavailable, check_ready, code_folder
from armada_web.games import stalls
from armada_web.storage import unpacked
from armada_web.storage.unpacked import Source
from armada_web.web.backoff import with_backoff

__all__ = ["ArchiveUnpackable", "CodeUnavailable", "PlatformFailure", "SandboxFailure", "Source", "check_sandbox",
           "place_code", "play", "sandbox_ready", "sandboxed", "wait_for_sandbox"]

logger = logging.getLogger(__name__)


class PlatformFailure(Exception):
    """The game could not be played for a reason that is not a bot's (Docker, image, storage, engine)."""


class SandboxFailure(PlatformFailure):
    """The sandbox (the Docker engine) failed before or during the game: worth another attempt.
    `engine_down`: the engine did not answer (worth waiting for)."""

    def __init__(self, message: str, *, engine_down: bool = False) -> None:
        super().__init__(message)
        self.engine_down = engine_down


class CodeUnavailable(SandboxFailure):
    """A seat's code could not be placed for a reason that is nobody's and may pass: its archive
    could not be read from storage (down, or the object truncated or replaced) or the host's cache
    kept changing under it. Worth another attempt (a match is given back, a validation retried)."""


#: Times `place_code` looks an entry up again after it went while being linked.
LINK_ATTEMPTS = 3
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
        raise SandboxFailure(f"the sandbox is unavailable: {exc}", engine_down=exc.engine_down) from None
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
    except SandboxFailure as exc:
        logger.warning("%s", exc)
        return False
    return True


def wait_for_sandbox(within_s: float | None = None) -> str:
    """`check_sandbox`, tried again with back-off (1, 2, 4 ... 10 s) for up to `within_s` seconds
    (ARMADA_SANDBOX_WAIT_S) while the engine does not answer; the SandboxFailure at once for
    anything else (a missing image), or when it does not come back."""
    return with_backoff(check_sandbox, again=lambda exc: isinstance(exc, SandboxFailure) and exc.engine_down,
                        within_s=float(settings.ARMADA.sandbox_wait_s if within_s is None else within_s),
                        first_s=1.0, cap_s=10.0,
                        before_next=lambda exc, pause: logger.warning("%s; checking again in %.0f s", exc, pause))


def place_code(*, seat: int, source: Source, code_dir: Path) -> bool:
    """Put the files of seat `seat`'s archive into its (empty) code folder, linked from the host's
    cache of unpacked versions (storage.unpacked); True when this call unpacked it (a cold start).
    A full cache disk is a SandboxFailure and storage that cannot be read (or an entry removed while
    being linked, LINK_ATTEMPTS times) a CodeUnavailable (the game is given back), an archive
    whose names do not unpack here ArchiveUnpackable."""
    for attempt in range(1, LINK_ATTEMPTS + 1):
        try:
            found = unpacked.entry(source=source)
            unpacked.link_entry(found, code_dir)
            return found.fresh
        except FileNotFoundError as exc:  # (EntryGone: removed from the cache while being linked)
            _clear(code_dir)
            if attempt == LINK_ATTEMPTS:
                raise CodeUnavailable(f"the cached files of seat {seat} went {attempt} times while being linked "
                                      f"({exc})") from None
        except BotSpecError as exc:
            raise ArchiveUnpackable(seat, str(exc)) from None
        except unpacked.SourceError as exc:
            raise CodeUnavailable(f"the archive of seat {seat} could not be read from storage ({exc})") from None
        except unpacked.CacheFull as exc:
            raise SandboxFailure(f"seat {seat}: {exc}") from None
        except OSError as exc:
            if exc.errno in _NAME_ERRNOS:
                raise ArchiveUnpackable(seat, f"{exc.strerror}: {exc.filename}") from None
            if exc.errno in unpacked.FULL:
                raise SandboxFailure(f"the archive of seat {seat} could not be unpacked ({exc})") from None
            raise PlatformFailure(f"the stored archive of seat {seat} could not be unpacked ({exc})") from None
        except Exception as exc:
            raise PlatformFailure(f"the stored archive of seat {seat} could not be unpacked ({exc})") from None
    raise AssertionError("unreachable")


def _clear(code_dir: Path) -> None:
    """Empty a code folder (a partial link of an entry that went)."""
    for child in code_dir.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()


def _sha(archive: Source | bytes) -> str:
    return (archive.sha256 if isinstance(archive, Source) else "(in memory)")[:12]


def _docker_bot(code_dir: Path, game: str, name: str, labels: dict[str, str], purpose: str) -> DockerBot:
    return DockerBot(code_dir, "main.py", label=name, limits=settings.ARMADA.game(game).sandbox, labels=labels,
                     image=settings.ARMADA.bot_image, purpose=purpose)


@contextmanager
def sandboxed(*, game: str, archive: Source | bytes, name: str, label: str
              ) -> Iterator[Callable[[], BotConnection]]:
    """A stored archive placed once, for as long as the block runs: yields a maker of fresh,
    unstarted sandboxed connections to it (one per game it is fed; the caller closes each),
    with the game's limits and the validation's slots (`label`: its containers' `armada.probe`).
    ArchiveUnpackable or PlatformFailure as `play`; a connection that cannot start raises the
    sandbox's `Unavailable`."""
    with ExitStack() as stack:
        code_dir: Path = stack.enter_context(code_folder())  # swept if this process dies before the end
        place_code(seat=1, source=archive if isinstance(archive, Source) else Source.of_bytes(archive),
                   code_dir=code_dir)
        if not _Sandbox.ready:
            wait_for_sandbox()
        yield lambda: _docker_bot(code_dir, game, name, {"armada.probe": label}, "validation")


def play(*, match_id: int | str, game: str, seed: int, seats: dict[int, tuple[str, Source | bytes]],
         config: dict[str, Any], purpose: str = "match") -> MatchOutcome:
    """Play match `match_id` (its containers' label) of `game` with engine `config`: `seats` maps
    1 and 2 to (bot name, stored archive: a `Source`, or bytes). `purpose` ("match" or "validation") says which sandbox
    slots the bots may take (docs/sandbox.md); a worker with warm slots (ARMADA_SANDBOX_WARM_PAIRS)
    starts them in its warm containers."""
    limits = settings.ARMADA.game(game)
    labels = {"armada.match": str(match_id)}
    with ExitStack() as stack:
        folders: dict[int, Path] = {}
        for seat, (_name, archive) in sorted(seats.items()):  # the code first: no sandbox needed for it
            # An opaque name: a cold container's bot sees its code folder's host path.
            folders[seat] = stack.enter_context(code_folder())  # swept if this process dies before the end
            fresh = place_code(seat=seat, source=archive if isinstance(archive, Source) else Source.of_bytes(archive),
                               code_dir=folders[seat])
            logger.info("match %s seat %s: version %s %s", match_id, seat, _sha(archive),
                        "unpacked into the cache" if fresh else "from the cache")
        if not _Sandbox.ready:
            wait_for_sandbox()
        bots: dict[int, BotConnection] = {
            seat: _docker_bot(folders[seat], game, name, {**labels, "armada.seat": str(seat)}, purpose)
            for seat, (name, _archive) in sorted(seats.items())}
        stalls.watch()
        try:
            outcome = play_match(game, bots, seed=seed, config=config, limits=limits.times)
        except SandboxUnavailable as exc:  # (play_match raises it only while starting the bots)
            _Sandbox.ready = False
            raise SandboxFailure(f"the sandbox is unavailable: {exc}") from None
        except (ConfigError, ValueError, RuntimeError) as exc:
            raise PlatformFailure(f"the engine failed: {exc}") from None
        ended = [f"seat {n}: {getattr(bot, 'sandbox_fault', '')}" for n, bot in sorted(bots.items())
                 if getattr(bot, "sandbox_fault", "") and outcome.players[n - 1].status != "ok"]
        if ended:  # what ended those bots was the sandbox: the result is nobody's
            _Sandbox.ready = False
            raise SandboxFailure(f"the sandbox failed during the game ({'; '.join(ended)})")
        late = [str(n) for n, player in enumerate(outcome.players, 1) if player.status == "timeout"]
        # A timeout ends the game: the request it came in began at most one request's whole allowance
        # before (init's, or a turn's with a full bank), plus the closing; a stall before that was paid
        # from the bank and the game went on (a review).
        times = limits.times
        window_s = max(times.init_ms, times.turn_ms + times.bank_ms) / 1000 + stalls.CLOSING_S
        stalled = stalls.stalled_since(time.monotonic() - window_s) if late else 0.0
        if stalled >= stalls.STALL_S:  # the time the bots were charged was this worker's: nobody's result
            raise SandboxFailure(f"this worker did not run for {stalled:.0f} s during the game (stopped or "
                                 f"starved), and seat {' and '.join(late)} timed out: not the bot's time")
        logger.info("match %s played; sandbox starts: %s", match_id,
                    ", ".join(f"seat {n} {'warm' if getattr(b, 'was_warm', False) else 'cold'}"
                              for n, b in sorted(bots.items())))
    return outcome
