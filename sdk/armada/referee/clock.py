"""Time limits of a match and the per-seat time bank (docs/protocol.md, "Time")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """Milliseconds: the init reply's bound, each later request's bound, and the match's time bank."""

    #: Start-up fits importing the bot image's ML stack and loading a 100 MiB model (measured under
    #: load: 7.6 to 10.8 s; docs/bots-environment.md, "Budgets"), with a margin of about three.
    init_ms: int = 30000
    turn_ms: int = 1000
    bank_ms: int = 10000

    def __post_init__(self) -> None:
        for name in ("init_ms", "turn_ms", "bank_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"limits: {name} must be a whole number of milliseconds, got {value!r}")
            minimum = 0 if name == "bank_ms" else 1
            if value < minimum:
                raise ValueError(f"limits: {name} must be at least {minimum}, got {value}")

    def to_dict(self) -> dict[str, int]:
        """The `limits` object of the init message."""
        return {"init_ms": self.init_ms, "turn_ms": self.turn_ms, "bank_ms": self.bank_ms}


#: Per-game default request bound (mothership orders get 2000 ms).
_TURN_MS = {"mothership": 2000}


def default_limits(game: Any) -> Limits:
    """The default limits of a game, given by slug or engine object."""
    slug = game if isinstance(game, str) else getattr(game, "slug", "")
    return Limits(turn_ms=_TURN_MS.get(slug, Limits.turn_ms))


class BankClock:
    """One seat's time bank: time beyond `turn_ms` is taken from it; never negative."""

    def __init__(self, limits: Limits) -> None:
        self.turn_ms = limits.turn_ms
        self.bank_ms = float(limits.bank_ms)

    def budget_ms(self) -> float:
        """The hard bound of the next request: turn_ms plus what is left in the bank."""
        return self.turn_ms + self.bank_ms

    def left_ms(self) -> int:
        """What is left in the bank, in whole milliseconds (the request's `bank_ms`)."""
        return int(self.bank_ms)

    def spend_all(self) -> None:
        """Empty the bank: a request that timed out used all of it."""
        self.bank_ms = 0.0

    def charge(self, elapsed_ms: float) -> None:
        """Take the time a reply needed beyond turn_ms from the bank."""
        over = elapsed_ms - self.turn_ms
        if over > 0:
            self.bank_ms = max(0.0, self.bank_ms - over)
