"""Run Armada bots in hardened Docker containers (docs/sandbox.md).

`DockerBot` is the `BotConnection`; `SandboxLimits` / `limits_for` its limits; `sweep`
removes containers a dead worker left behind; `image_status` checks the bot image.
"""

from armada_sandbox.docker_bot import DockerBot
from armada_sandbox.image import BOT_IMAGE, image_status
from armada_sandbox.limits import SandboxLimits, limits_for
from armada_sandbox.sweeper import sweep

__all__ = ["BOT_IMAGE", "DockerBot", "SandboxLimits", "image_status", "limits_for", "sweep"]
