"""Which codec encodes which game (`codec_for`)."""

from __future__ import annotations

from typing import Any

from armada.rl.codec import Codec
from armada.rl.galaxy import GalaxyCodec
from armada.rl.mothership import MothershipCodec

#: Game slug -> its codec class.
CODECS: dict[str, type[Codec]] = {"galaxy": GalaxyCodec, "mothership": MothershipCodec}


def codec_for(game: str, config: dict[str, Any], **options: Any) -> Codec:
    """The codec of `game` for its full configuration (`Session.config`); ValueError for an unknown game."""
    if game not in CODECS:
        raise ValueError(f"unknown game {game!r}; choose one of: {', '.join(CODECS)}")
    return CODECS[game](config, **options)
