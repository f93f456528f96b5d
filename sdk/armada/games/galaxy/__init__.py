"""Galaxy: the 16-planet conquest game with hidden information (docs/games/galaxy.md, GX-1..GX-23)."""

from armada.games.galaxy.config import DEFAULT_CONFIG, GalaxyConfig
from armada.games.galaxy.engine import GALAXY, Galaxy

__all__ = ["DEFAULT_CONFIG", "GALAXY", "Galaxy", "GalaxyConfig"]
