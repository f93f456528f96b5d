"""The platform's game specs: for each game of `armada.games`, what the site does with it.

The engine (rules, config, seats) is the SDK's; a spec adds how the platform ranks the game,
what a validation game plays against, whether challenges and a rating chart exist, and the
labels and templates of its pages. Adding a game is adding a spec here (and its engine in
the SDK); no other module compares game slugs.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from armada.games.base import Game
from armada.games.registry import get_game
from armada.referee.clock import Limits, default_limits


class Ranking(StrEnum):
    """How a game's entries are ordered."""

    RATED = "rated"
    """Ranked matches made by matchmaking move each version's rating (Galaxy)."""
    LEAGUE = "league"
    """Every entry meets every other, played in-engine from the orders kept at validation (Mothership Down)."""


@dataclass(frozen=True)
class GameSpec:
    """One game as the platform runs it."""

    slug: str
    label: str
    blurb: str
    ranking: Ranking
    #: The starter bot a validation game plays against.
    validation_opponent: str
    #: `max_turns` of a validation game (None: the engine's own length); ARMADA_<GAME>_VALIDATION_TURNS.
    validation_turns: int | None
    #: The docs page of its rules (armada_web.pages.docs slug).
    rules: str
    #: URL name and label of its table page.
    table_url: str
    table_label: str
    #: What its unit of play is called in results ("turns", "rounds").
    length_unit: str
    #: What the name a bot gives at init is called on its pages ("Race name"); '' when the pages do not show it.
    init_name_label: str
    #: What happens to a version once it is valid and active (the version page says it).
    after_valid: str

    @property
    def length_unit_one(self) -> str:
        """One unit of play ("turn", "round")."""
        return self.length_unit.removesuffix("s")

    @property
    def engine(self) -> Game:
        return get_game(self.slug)

    @property
    def default_times(self) -> Limits:
        """protocol.md's time limits of this game (init, each request, the bank)."""
        return default_limits(self.slug)

    @property
    def rated(self) -> bool:
        """Ranked matches of this game change ratings (and so it has a ladder and a rating chart)."""
        return self.ranking is Ranking.RATED

    @property
    def keeps_orders(self) -> bool:
        """Its validation keeps the bot's first answer as its orders (MD-11): the league plays them."""
        return self.ranking is Ranking.LEAGUE

    @property
    def challenges(self) -> bool:
        """Users may ask for unrated matches (a league already plays every pairing)."""
        return self.ranking is Ranking.RATED


SPECS: dict[str, GameSpec] = {
    s.slug: s
    for s in (
        GameSpec(
            slug="galaxy", label="Galaxy", ranking=Ranking.RATED,
            blurb="Two players, sixteen planets, hidden fleets and espionage probes; "
                  "conquer the grid within 200 turns.",
            validation_opponent="random", validation_turns=30, rules="galaxy",
            table_url="ladder-galaxy", table_label="Ladder", length_unit="turns", init_name_label="",
            after_valid="It plays ranked matches now: matchmaking pairs it with bots near its rating within "
                        "a minute or two, and it appears on the ladder after its first one.",
        ),
        GameSpec(
            slug="mothership", label="Mothership Down", ranking=Ranking.LEAGUE,
            blurb="Allocate 100 points to a mothership and five fighters; "
                  "fixed orders fight every other race in a league.",
            validation_opponent="balanced", validation_turns=None, rules="mothership",
            table_url="ladder-mothership", table_label="League", length_unit="rounds", init_name_label="Race name",
            after_valid="It is in the league now: its orders fought every other race at once (MD-10, MD-11); "
                        "its race page shows each battle.",
        ),
    )
}


def spec(slug: str) -> GameSpec:
    """The spec of game `slug`; KeyError naming the known games for any other."""
    try:
        return SPECS[slug]
    except KeyError:
        raise KeyError(f"unknown game {slug!r}; known games: {', '.join(sorted(SPECS))}") from None


def rated_games() -> list[GameSpec]:
    """The games whose ranked matches matchmaking makes."""
    return [s for s in SPECS.values() if s.rated]
