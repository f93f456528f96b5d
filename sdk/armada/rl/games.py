"""Which codec encodes which game (`codec_for`)."""

from __future__ import annotations

from typing import Any

from armada.referee.game_driver import resolve_game
from armada.replay import plain
from armada.rl.codec import Codec
from armada.rl.galaxy import GalaxyCodec
from armada.rl.mothership import MothershipCodec

#: Game slug -> its codec class.
CODECS: dict[str, type[Codec]] = {"galaxy": GalaxyCodec, "mothership": MothershipCodec}


def codec_for(game: str, config: dict[str, Any] | None = None, **options: Any) -> Codec:
    """The codec of `game` for `config` (a game's configuration, as `armada play --config` takes it:
    what it leaves out is the game's default; None: the defaults); ValueError for an unknown game,
    ConfigError for a bad configuration (the engine's own check, as the environments make)."""
    if game not in CODECS:
        raise ValueError(f"unknown game {game!r}; choose one of: {', '.join(CODECS)}")
    engine = resolve_game(game)
    full = plain(engine.config_to_dict(engine.parse_config(config)))
    return CODECS[game](full, **options)
