"""Mothership Down (docs/games/mothership.md, MD-1..MD-12): config, orders, battle, engine object and league."""

from armada.games.mothership.battle import BattleResult, battle, simulate
from armada.games.mothership.config import DEFAULT_CONFIG, FIGHTERS, MothershipConfig, parse_config
from armada.games.mothership.engine import MOTHERSHIP, MothershipGame, MothershipState
from armada.games.mothership.league import Race, TableRow, league
from armada.games.mothership.orders import (
    FighterOrders,
    OrdersError,
    RaceOrders,
    check_orders,
    parse_orders,
    random_orders,
)

__all__ = [
    "DEFAULT_CONFIG",
    "FIGHTERS",
    "MOTHERSHIP",
    "BattleResult",
    "FighterOrders",
    "MothershipConfig",
    "MothershipGame",
    "MothershipState",
    "OrdersError",
    "Race",
    "RaceOrders",
    "TableRow",
    "battle",
    "check_orders",
    "league",
    "parse_config",
    "parse_orders",
    "random_orders",
    "simulate",
]
