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
from armada.referee.framing import ProtocolError, decode_reply


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
        """The reply for an action as given: a reply object (dict or JSON text) as a bot's line, else `decode(action)`.

        A reply object is read as the referee reads a bot's line (a dict as its JSON text, see
        `reply_text`): ProtocolError when a bot's line would be a protocol fault (the environments
        forfeit that seat). An action that is neither raises ValueError unless it is a member of
        `action_space` (`check`)."""
        if isinstance(action, dict):
            action = reply_text(action)
        if isinstance(action, str | bytes):
            return decode_reply(action.encode("utf-8", "surrogatepass") if isinstance(action, str) else action)
        return self.decode(self.check(action), request, memory)

    def check(self, action: Any) -> np.ndarray:
        """`action` as an int64 array of `action_space`; ValueError saying what is wrong with it."""
        nvec = self.action_space.nvec
        array = np.asarray(action)
        if array.shape != nvec.shape:
            raise ValueError(f"a {self.game} action is an integer array of shape {nvec.shape} (docs/rl.md), or a "
                             f"reply as a dict or JSON text; got {_described(action, array)}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"a {self.game} action holds integers; got {_described(action, array)}")
        given, array = array, array.astype(np.int64, copy=False)
        # Negative values read as unsigned are huge: one comparison finds both ends out of range.
        outside = array.view(np.uint64) >= nvec.view(np.uint64)
        if outside.any():
            at = tuple(int(i) for i in np.argwhere(outside)[0])
            # the value given: a uint64 above 2**63 - 1 reads negative as an int64
            raise ValueError(f"a {self.game} action's value at {at} is {int(given[at])}, "
                             f"outside 0..{int(nvec[at]) - 1}")
        return array


def reply_text(reply: dict[str, Any]) -> bytes:
    """A reply dict as the JSON line a bot would send: numpy scalars as the Python numbers they
    hold, numpy arrays and tuples as lists; NaN and Infinity written as such (the referee's
    parser refuses them outside `debug`). ValueError for anything JSON cannot hold; ProtocolError
    for nesting too deep to write (as the referee says of such a line)."""
    try:
        return json.dumps(reply, allow_nan=True, default=_json_default).encode("utf-8")
    except RecursionError:  # what the referee says of a line nested this deep
        raise ProtocolError("reply is nested too deeply to parse") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a reply given as a dict must hold JSON data (dicts with string keys, lists, "
                         f"strings, numbers, booleans, None; numpy numbers and arrays are converted): {exc}") from None


def _json_default(value: Any) -> Any:
    """What json.dumps writes for a numpy scalar (its Python number) or array (its nested lists)."""
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _described(action: Any, array: np.ndarray) -> str:
    """What an action is, for an error message: its type, and its shape and dtype when it is an array."""
    if array.dtype.kind == "O" and array.shape == ():
        return f"{type(action).__name__} {str(action)[:60]}"
    return f"{type(action).__name__} of shape {array.shape} and dtype {array.dtype}"
