"""Writing a Mothership Down bot: typed `Orders` and `MothershipBot`.

Subclass `MothershipBot`, implement `orders(config)` returning an `Orders`, and end the
script with `run(MyBot())`. The bot is asked once; its orders then fight every battle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from armada.bot.base import BaseBot, plain_int
from armada.games.base import ConfigError
from armada.games.mothership import orders as _engine_orders
from armada.games.mothership.config import DEFAULT_CONFIG, FIGHTERS, MothershipConfig, parse_config
from armada.games.rng import Rng

__all__ = ["FIGHTERS", "Fighter", "MothershipBot", "MothershipConfig", "Orders", "random_orders"]


@dataclass
class Fighter:
    """One fighter: attack points, defence points and the shot strengths it fires in turn (MD-2)."""

    attack: int
    defence: int
    pattern: list[int] = field(default_factory=lambda: [1])

    def to_dict(self) -> dict[str, Any]:
        """Its reply object (numpy's integers as Python's: `plain_int`)."""
        return {"attack": plain_int(self.attack), "defence": plain_int(self.defence),
                "pattern": [plain_int(shot) for shot in self.pattern]}


@dataclass
class Orders:
    """A race's orders: mothership defence and five fighters (position i = index i - 1)."""

    mothership: int
    fighters: list[Fighter]

    @classmethod
    def uniform(cls, mothership: int, attack: int, defence: int, pattern: list[int]) -> Orders:
        """Orders with five identical fighters."""
        return cls(mothership, [Fighter(attack, defence, list(pattern)) for _ in range(FIGHTERS)])

    @classmethod
    def cheapest(cls, config: MothershipConfig | dict[str, Any] | None = None) -> Orders:
        """The cheapest legal orders: every value at its minimum, single-point shots (always valid)."""
        c = _config(config)
        return cls.uniform(c.mothership_defence[0], c.fighter_attack[0], c.fighter_defence[0], [1])

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Orders:
        """Orders from a reply object (not validated: call `validate`)."""
        return cls(
            data["mothership"]["defence"],
            [Fighter(f["attack"], f["defence"], list(f["pattern"])) for f in data["fighters"]],
        )

    def points_used(self) -> int:
        """Mothership defence plus every fighter's attack and defence (at most config.total_points)."""
        return self.mothership + sum(f.attack + f.defence for f in self.fighters)

    def points_left(self, config: MothershipConfig | dict[str, Any] | None = None) -> int:
        """Points still unallocated (unspent points are lost, MD-1)."""
        return _config(config).total_points - self.points_used()

    def to_dict(self) -> dict[str, Any]:
        """The reply object the engine expects."""
        return {"mothership": {"defence": plain_int(self.mothership)}, "fighters": [f.to_dict() for f in self.fighters]}

    def validate(self, config: MothershipConfig | dict[str, Any] | None = None) -> list[str]:
        """Every problem the engine would reject these orders for (empty: valid). Same checks as the server."""
        return _engine_orders.check_orders(self.to_dict(), _config(config))


def _config(config: MothershipConfig | dict[str, Any] | None) -> MothershipConfig:
    return config if isinstance(config, MothershipConfig) else parse_config(config)


def random_orders(rng: Rng, config: MothershipConfig | dict[str, Any] | None = None) -> Orders:
    """Random legal orders (a test opponent; also what the `random` starter plays)."""
    return Orders.from_dict(_engine_orders.random_orders(rng, _config(config)).to_dict())


class MothershipBot(BaseBot):
    """Base class of Mothership Down bots: implement `orders(config)`.

    After `init`, `self.seat` (1 or 2) and `self.config` (a MothershipConfig: total_points,
    max_pattern, and (low, high) ranges mothership_defence, fighter_attack, fighter_defence) are set.
    """

    game = "mothership"

    def __init__(self) -> None:
        self.seat: int = 0
        self.config: MothershipConfig = DEFAULT_CONFIG
        self.raw_config: dict[str, Any] = {}

    def on_init(self, init: dict[str, Any]) -> None:
        self.seat = init.get("seat", 0)
        raw = init.get("config") or {}
        self.raw_config = raw if isinstance(raw, dict) else {}
        try:
            self.config = parse_config(self.raw_config)
        except ConfigError as exc:  # a newer server's config: play with the defaults, say so in the log
            self.log(f"[armada] unknown config ({exc}); using the default limits")
            self.config = DEFAULT_CONFIG

    def orders(self, config: MothershipConfig) -> Orders:
        """Your race's orders. Called once per match; the opponent is unknown (MD-11)."""
        raise NotImplementedError("implement orders(config) in your bot")

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """Reply to the `orders` request; problems are logged to stderr before sending."""
        if request.get("type") != "orders":
            raise ValueError(f"a Mothership Down bot only answers 'orders', got {request.get('type')!r}")
        orders = self.orders(self.config)
        if isinstance(orders, dict):
            orders = Orders.from_dict(orders)
        if not isinstance(orders, Orders):
            raise TypeError(f"orders() must return an Orders, got {type(orders).__name__}")
        for problem in orders.validate(self.config):
            self.log(f"[armada] these orders will be rejected: {problem}")
        return orders.to_dict()
