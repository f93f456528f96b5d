"""The games the platform knows, by slug: `get_game("mothership")`, `get_game("galaxy")`."""

from __future__ import annotations

import importlib

from armada.games.base import Game

#: Slug -> (module, engine object name); engines are imported on first use.
GAMES: dict[str, tuple[str, str]] = {
    "galaxy": ("armada.games.galaxy", "GALAXY"),
    "mothership": ("armada.games.mothership", "MOTHERSHIP"),
}


class UnknownGame(ValueError):
    """A slug that names no game."""


def get_game(slug: str) -> Game:
    """The engine object for `slug`; UnknownGame (a ValueError) lists the known slugs."""
    if not isinstance(slug, str) or slug not in GAMES:
        raise UnknownGame(f"unknown game {slug!r}; known games: {', '.join(sorted(GAMES))}")
    module_name, attribute = GAMES[slug]
    game: Game = getattr(importlib.import_module(module_name), attribute)
    return game
