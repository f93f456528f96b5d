"""Run Armada bots in hardened Docker containers (docs/sandbox.md): the sandbox's public API.

Import these names from `armada_sandbox` itself. Modules whose names start with an underscore
hold the Docker plumbing (the engine client, container options, the seccomp profile, the FIFOs,
the image) and are nobody else's business.

- `DockerBot`: the `BotConnection` that runs one bot in its container; `SandboxLimits` and
  `limits_for()` its resource limits.
- `check_ready()`: does the engine answer and hold the bot image (`BOT_IMAGE`, `image_status()`);
  `SandboxUnavailable`: the typed error of every start failure that is not the bot's.
- `WarmPool`, `process_pool()`, `close_process_pool()`: containers a worker makes ahead.
- `SlotPool`, `Lease`, `SlotsBusy`, `default_pool()`: the host's sandbox slots (a uid and a CPU each).
- `sweep()`, `sweep_folders()`: remove the containers and work folders of dead workers;
  `code_folder()`: a folder for a bot's code that the sweeper removes if its process dies.
"""

from armada_sandbox._engine import SandboxUnavailable, check_ready
from armada_sandbox._image import BOT_IMAGE, DEFAULT_BOT_IMAGE, ImageStatus, image_status
from armada_sandbox.docker_bot import DockerBot
from armada_sandbox.folders import FolderNotPrivate, code_folder, private_folder, sweep_folders
from armada_sandbox.limits import SandboxLimits, limit_variables, limits_for
from armada_sandbox.slots import Lease, SlotPool, SlotsBusy, default_pool
from armada_sandbox.sweeper import sweep
from armada_sandbox.warm import WarmPool, close_process_pool, process_pool

__all__ = [
    "BOT_IMAGE",
    "DEFAULT_BOT_IMAGE",
    "DockerBot",
    "FolderNotPrivate",
    "ImageStatus",
    "Lease",
    "SandboxLimits",
    "SandboxUnavailable",
    "SlotPool",
    "SlotsBusy",
    "WarmPool",
    "check_ready",
    "close_process_pool",
    "code_folder",
    "default_pool",
    "image_status",
    "limit_variables",
    "limits_for",
    "private_folder",
    "process_pool",
    "sweep",
    "sweep_folders",
]
