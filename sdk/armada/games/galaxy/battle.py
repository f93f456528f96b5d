"""Battle arithmetic on unit triples (battleships, cruisers, launchers): GX-5, GX-13, GX-14, GX-16."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Units = tuple[int, int, int]
NONE: Units = (0, 0, 0)
#: What an attacker keeps after a battle of equal MLE (GX-13).
TIE_SURVIVOR: Units = (0, 1, 0)


def mle(units: Units) -> int:
    """Missile Launch Equivalent: battleship 4, cruiser 2, launcher 1 (GX-5)."""
    return 4 * units[0] + 2 * units[1] + units[2]


def take_losses(units: Units, damage: int) -> Units:
    """The survivors after `damage`: launchers, then cruisers, then battleships; only whole units die (GX-14)."""
    b, c, n = units
    if damage >= n:  # (conditionals, not min(): this runs in every battle)
        damage -= n
        n = 0
    else:
        return (b, c, n - damage)
    k = damage // 2
    if k >= c:
        damage -= 2 * c
        c = 0
    else:
        return (b, c - k, 0)
    k = damage // 4
    return (b - k if k < b else 0, c, n)


def fight(attacker: Units, defender: Units) -> tuple[bool, Units, Units]:
    """One battle (GX-13): (attacker won, attacker after, defender after); the loser loses everything."""
    a = 4 * attacker[0] + 2 * attacker[1] + attacker[2]  # mle(), written out: this runs in every battle
    d = 4 * defender[0] + 2 * defender[1] + defender[2]
    if a > d:
        return True, take_losses(attacker, d), NONE
    if a == d:
        return True, TIE_SURVIVOR, NONE
    return False, NONE, take_losses(defender, a)


@dataclass
class Contest:
    """How a neutral planet attacked by both seats at once ended (GX-16)."""

    split: dict[int, int]  # launchers each seat fights
    drawn: int | None  # seat the seeded draw gave the extra launcher to, if a draw was needed
    half_won: dict[int, bool]
    half_after: dict[int, Units]  # each attacker after its half
    launchers_left: dict[int, int]  # launchers left in each half
    final: tuple[Units, Units] | None = None  # forces of seats 1 and 2 entering the final fight
    owner: int = 0  # owner after the battle: 0 stays neutral
    garrison: Units = NONE  # what stays on the planet (launchers only when still neutral)
    after: dict[int, Units] = field(default_factory=dict)  # each attacker at the very end


def contest(launchers: int, forces: dict[int, Units], draw: Callable[[], int]) -> Contest:
    """Both seats attack one neutral planet holding `launchers` (GX-16); `draw()` returns 1 or 2."""
    half, extra = divmod(launchers, 2)
    split = {1: half, 2: half}
    drawn = None
    if extra:
        m1, m2 = mle(forces[1]), mle(forces[2])
        if m1 == m2:
            drawn = draw()
            bigger = drawn
        else:
            bigger = 1 if m1 > m2 else 2
        split[bigger] += 1
    won: dict[int, bool] = {}
    after: dict[int, Units] = {}
    left: dict[int, int] = {}
    for seat in (1, 2):
        ok, att_after, def_after = fight(forces[seat], (0, 0, split[seat]))
        won[seat], after[seat], left[seat] = ok, att_after, def_after[2]
    result = Contest(split, drawn, won, dict(after), left)
    if won[1] and won[2]:
        result.final = (after[1], after[2])
        m1, m2 = mle(after[1]), mle(after[2])
        if m1 == m2:  # equal: both destroyed, the planet stays neutral with 0 launchers
            after = {1: NONE, 2: NONE}
        elif m1 > m2:
            after = {1: take_losses(after[1], m2), 2: NONE}
        else:
            after = {1: NONE, 2: take_losses(after[2], m1)}
    result.after = after
    standing = [seat for seat in (1, 2) if after[seat] != NONE]
    if standing:
        result.owner = standing[0]
        result.garrison = after[standing[0]]
    elif result.final is None:
        result.garrison = (0, 0, left[1] + left[2])
    return result
