"""What a game's numbers look like to a learner: `Codec`, one per game, and `codec_for(game, config)`.

A codec turns the request a bot receives into a fixed-size numpy observation (`encode`) and
an action of its discrete action space into a valid reply (`decode`); docs/rl.md documents
both encodings. A codec keeps what a seat saw in `memory` (a dict per seat and game), as a
bot would, since some requests build on the one before (Galaxy's command request).
`armada.rl.games.codec_for(game, config)` picks a game's codec.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from gymnasium import spaces

from armada.api import Session


class Codec:
    """The observation and action encodings of one game with one configuration."""

    #: The game's slug.
    game: str = ""
    observation_space: spaces.Space[Any]
    #: Every game's actions are a MultiDiscrete (docs/rl.md).
    action_space: spaces.MultiDiscrete

    def __init__(self, config: dict[str, Any], **options: Any) -> None:
        """`config` is the game's full configuration (`Session.config`); `options` the codec's own."""
        raise NotImplementedError

    def encode(self, request: dict[str, Any] | None, memory: dict[str, Any]) -> Any:
        """The observation of a request (None: the game is over, the last one is shown again)."""
        raise NotImplementedError

    def decode(self, action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        """A valid reply to `request` from an action of `action_space`."""
        raise NotImplementedError

    def progress(self, session: Session, seat: int) -> float:
        """The public measure the optional shaped reward follows, in [-1, 1] (docs/rl.md, "Rewards")."""
        raise NotImplementedError

    def reply(self, action: Any, request: dict[str, Any], memory: dict[str, Any]) -> dict[str, Any]:
        """The reply for an action as given: a reply object (dict or JSON text) as is, else `decode(action)`."""
        if isinstance(action, dict):
            return action
        if isinstance(action, str | bytes):
            reply = json.loads(action)
            if not isinstance(reply, dict):
                raise ValueError(f"a JSON reply must be an object, got {type(reply).__name__}")
            return reply
        return self.decode(np.asarray(action), request, memory)
