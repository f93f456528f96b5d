"""The Docker engine: the shared client, `check_ready()`, and the typed `SandboxUnavailable`.

Whatever keeps the sandbox from running a bot that is not the bot's doing (no engine, no image,
no free slot, a container the engine would not create or start) is a `SandboxUnavailable`. It
is the SDK's `Unavailable`, so `play_match` lets it out instead of giving the bot a fault, and the
platform voids the match (docs/sandbox.md, "When the sandbox cannot start a bot").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import docker
from docker.errors import DockerException

from armada.referee.connection import Unavailable
from armada_sandbox._image import BOT_IMAGE, image_status

#: Where docker-py connects when DOCKER_HOST is unset.
DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"
#: Seconds `check_ready()` waits for each answer of the engine.
CHECK_TIMEOUT_S = 5.0


class SandboxUnavailable(Unavailable):
    """The sandbox cannot run a bot now, for a reason that is not the bot's (the message says which).

    `engine_down` is true when the Docker engine did not answer (stopped, restarting): worth
    waiting for, unlike a missing image."""

    def __init__(self, message: str, *, engine_down: bool = False) -> None:
        super().__init__(message)
        self.engine_down = engine_down


def engine_address() -> str:
    """The engine docker-py talks to (DOCKER_HOST, else the local socket)."""
    return os.environ.get("DOCKER_HOST") or DEFAULT_DOCKER_HOST


def connect(timeout: float, **options: Any) -> Any:
    """A new Docker SDK client from the environment; SandboxUnavailable when the engine does not answer."""
    try:
        return docker.from_env(timeout=timeout, **options)
    except DockerException as exc:
        raise SandboxUnavailable(f"the Docker engine is not reachable at {engine_address()} ({exc}); "
                                 "start dockerd or point DOCKER_HOST at it", engine_down=True) from None


_client_lock = threading.Lock()
_client: Any = None


def docker_client() -> Any:
    """One shared client (thread safe; a connection pool large enough for many bots).

    Raises SandboxUnavailable while the engine does not answer (asked again on the next call)."""
    global _client
    with _client_lock:
        if _client is None:
            _client = connect(timeout=60, max_pool_size=64)
        return _client


def check_ready(image: str = BOT_IMAGE, client: Any = None, *,
                on_stale: Callable[[str], object] | None = None) -> str:
    """Is the sandbox usable: the engine answers and holds `image`. Returns what it found, in short
    ("docker 26.1, bot image armada/bot:latest present"); raises SandboxUnavailable saying why not.

    `client` defaults to a new one from the environment (DOCKER_HOST as it is now), closed after.
    An image built from other SDK sources than this checkout's still runs bots: the description
    says so, and `on_stale` (e.g. a printer of warnings; it may raise) gets the problem's line.
    """
    own = client is None
    client = connect(CHECK_TIMEOUT_S) if own else client
    try:
        try:
            version = client.version().get("Version", "?")
            status = image_status(client, image)
        except (DockerException, OSError) as exc:  # requests' errors are OSErrors
            raise SandboxUnavailable(f"the Docker engine did not answer ({exc.__class__.__name__}: {exc})",
                                     engine_down=True) from None
        if not status.present:
            raise SandboxUnavailable(status.problem() or f"bot image {image} is missing")
        if status.fresh:
            return f"docker {version}, bot image {image} present"
        if on_stale is not None:
            on_stale(status.problem() or f"bot image {image} is stale")
        return f"docker {version}, bot image {image} present but older than the SDK sources"
    finally:
        if own:
            client.close()
