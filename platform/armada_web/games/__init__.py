"""What differs per game on the platform, in one registry, and the one place a game is played
in the sandbox (`runner.play`). Generic code asks `spec(slug)` instead of comparing slugs."""

from armada_web.games.specs import SPECS, GameSpec, Ranking, rated_games, spec

__all__ = ["SPECS", "GameSpec", "Ranking", "rated_games", "spec"]
