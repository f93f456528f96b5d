"""Predict Galaxy battles the way the engine resolves them (GX-13, GX-14), so bots can plan.

This covers one attacking force against one garrison; the split of a neutral planet
attacked by both players at once (GX-16) is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from armada.bot.galaxy.messages import MLE_BATTLESHIP, MLE_CRUISER, MLE_LAUNCHER, Units


def apply_losses(units: Units, damage: int) -> Units:
    """What the winner keeps after taking `damage` (GX-14).

    Damage destroys launchers first (1 each), then cruisers (2 each), then battleships
    (4 each); a unit is destroyed only when the damage left covers its whole MLE, and a
    smaller remainder is absorbed without loss (survivors are fully repaired).
    """
    if damage < 0:
        raise ValueError(f"damage must not be negative, got {damage}")
    left = damage
    counts = []
    for count, cost in (
        (units.launchers, MLE_LAUNCHER),
        (units.cruisers, MLE_CRUISER),
        (units.battleships, MLE_BATTLESHIP),
    ):
        killed = min(count, left // cost)
        left -= killed * cost
        counts.append(count - killed)
    launchers, cruisers, battleships = counts
    return Units(battleships, cruisers, launchers)


@dataclass(frozen=True)
class BattleOutcome:
    """Result of one attack: who won and what each side keeps (the loser keeps nothing)."""

    attacker_wins: bool
    attacker_after: Units
    defender_after: Units

    @property
    def survivors(self) -> Units:
        """The winner's remaining units."""
        return self.attacker_after if self.attacker_wins else self.defender_after


def battle_outcome(attack: Units, defence: Units) -> BattleOutcome:
    """Resolve an attacking force against a garrison (GX-13, GX-14).

    The larger MLE wins; on equal MLE the attacker wins and exactly 1 cruiser remains.
    The winner loses units worth the loser's MLE (`apply_losses`). Launchers in `attack`
    are counted like any unit, though real fleets carry none.
    """
    a, d = attack.mle, defence.mle
    if a == d:
        return BattleOutcome(True, Units(0, 1, 0), Units())
    if a > d:
        return BattleOutcome(True, apply_losses(attack, d), Units())
    return BattleOutcome(False, Units(), apply_losses(defence, a))


def captures(attack: Units, defence: Units) -> bool:
    """True when `attack` takes a planet defended by `defence` (equal MLE is enough, GX-13)."""
    return attack.mle >= defence.mle
