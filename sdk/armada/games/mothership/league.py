"""The Mothership Down league (MD-10, MD-11): every race fights every other once, from stored orders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from armada.games.mothership.battle import Prepared, fight, prepare
from armada.games.mothership.config import DEFAULT_CONFIG, MothershipConfig
from armada.games.mothership.orders import RaceOrders

#: League points (MD-10).
WIN_DESTRUCTION = 3
WIN_DAMAGE = 2
DRAW = 1
LOSS = 0


@dataclass(frozen=True)
class Race:
    """A league entrant: its orders (MD-11) and when it was submitted (the last tie-break, earlier first).

    `key` is the caller's own id (a bot version id, say); races with equal `submitted` keep list order.
    """

    name: str
    orders: RaceOrders | dict[str, Any]
    submitted: Any = 0
    key: Any = None


@dataclass(frozen=True)
class TableRow:
    """One line of the league table; `position` counts from 1."""

    position: int
    race: Race
    played: int
    wins_destruction: int
    wins_damage: int
    draws: int
    losses: int
    points: int
    damage_dealt: int
    damage_taken: int

    @property
    def damage_difference(self) -> int:
        """Mothership damage dealt minus taken, over all battles (third ordering key)."""
        return self.damage_dealt - self.damage_taken


def battle_points(taken_1: int, taken_2: int, defence_1: int, defence_2: int) -> tuple[int, int]:
    """League points of both sides from the damage each mothership took (capped at its defence)."""
    down_1 = taken_1 >= defence_1
    down_2 = taken_2 >= defence_2
    if down_1 != down_2:
        return (LOSS, WIN_DESTRUCTION) if down_1 else (WIN_DESTRUCTION, LOSS)
    if down_1 or taken_1 == taken_2:
        return DRAW, DRAW
    return (WIN_DAMAGE, LOSS) if taken_1 < taken_2 else (LOSS, WIN_DAMAGE)


def league(races: list[Race], config: MothershipConfig = DEFAULT_CONFIG) -> list[TableRow]:
    """Play all N(N-1)/2 battles and return the table in MD-10 order.

    Orders given as dicts are validated first (OrdersError names the race and the problem);
    races that failed validation never enter a league (MD-12), so this is a caller's bug.
    """
    prepared: list[Prepared] = []
    for race in races:
        try:
            prepared.append(prepare(race.orders, config))
        except ValueError as exc:
            raise ValueError(f"race {race.name!r}: {exc}") from exc
    n = len(prepared)
    points = [0] * n
    by_destruction = [0] * n
    by_damage = [0] * n
    draws = [0] * n
    dealt = [0] * n
    taken = [0] * n
    for i in range(n):
        race_i = prepared[i]
        m_i = race_i[0]
        for j in range(i + 1, n):
            race_j = prepared[j]
            m_j = race_j[0]
            _rounds, t_i, t_j = fight(race_i, race_j)
            taken[i] += t_i
            dealt[j] += t_i
            taken[j] += t_j
            dealt[i] += t_j
            down_i = t_i >= m_i
            down_j = t_j >= m_j
            if down_i != down_j:
                winner = j if down_i else i
                points[winner] += WIN_DESTRUCTION
                by_destruction[winner] += 1
            elif down_i or t_i == t_j:
                points[i] += DRAW
                points[j] += DRAW
                draws[i] += 1
                draws[j] += 1
            else:
                winner = i if t_i < t_j else j
                points[winner] += WIN_DAMAGE
                by_damage[winner] += 1
    def head_to_head(a: int, b: int) -> tuple[int, int]:
        _rounds, t_a, t_b = fight(prepared[a], prepared[b])
        return battle_points(t_a, t_b, prepared[a][0], prepared[b][0])

    keys = [(points[i], by_destruction[i], dealt[i] - taken[i]) for i in range(n)]
    order = table_order(keys, [race.submitted for race in races], head_to_head)
    rows = []
    for position, i in enumerate(order, start=1):
        losses = n - 1 - by_destruction[i] - by_damage[i] - draws[i]
        rows.append(
            TableRow(position, races[i], n - 1, by_destruction[i], by_damage[i], draws[i], losses, points[i],
                     dealt[i], taken[i])
        )
    return rows


def table_order(
    keys: list[tuple[int, int, int]],
    submitted: list[Any],
    head_to_head: Callable[[int, int], tuple[int, int]],
) -> list[int]:
    """Race indices in MD-10 order.

    keys[i] = (points, wins by destruction, damage difference), higher first; ties are broken by
    head-to-head (among the races tied on all three keys, the points each earned in the battles
    between them: for two races, who won their battle; `head_to_head(i, j)` gives both sides'
    points), then by the earlier `submitted`, then by list order.
    """
    order = sorted(range(len(keys)), key=lambda i: tuple(-k for k in keys[i]))
    result: list[int] = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and keys[order[end]] == keys[order[start]]:
            end += 1
        group = order[start:end]
        if len(group) > 1:
            mini = dict.fromkeys(group, 0)
            for a_pos, a in enumerate(group):
                for b in group[a_pos + 1:]:
                    p_a, p_b = head_to_head(a, b)
                    mini[a] += p_a
                    mini[b] += p_b
            group.sort(key=lambda i: (-mini[i], submitted[i], i))
        result.extend(group)
        start = end
    return result
