"""Armada SDK: engines, referee, bot library and command line for the Armada arena.

`armada.run(game, [bot, bot], seed=...)` plays a match from Python and `armada.Session`
drives one step by step (armada.api, docs/cli.md "From Python"); both are imported on first use,
so a bot importing `armada.bot` does not load the referee.
"""

from typing import Any

__version__ = "0.1.0"
__all__ = ["Session", "__version__", "run"]


def __getattr__(name: str) -> Any:
    if name in ("run", "Session"):
        from armada import api

        return getattr(api, name)
    raise AttributeError(f"module 'armada' has no attribute {name!r}")
