"""A small deterministic seeded generator whose whole state is one JSON-able int.

Engines keep an `Rng` inside their match state; `dump()` / `Rng.load()` turn it into
plain JSON data and back. The algorithm is SplitMix64 on Python ints, so a seed gives
the same stream on every platform and Python version (unlike `random.Random`, whose
algorithm and state format we must not depend on).
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _check_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    return value


class Rng:
    """SplitMix64 generator. `Rng(seed)` accepts any int (reduced modulo 2**64)."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = _check_int(seed, "seed") & _MASK

    def next64(self) -> int:
        """The next raw 64-bit output."""
        self._state = z = (self._state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def _below(self, n: int) -> int:
        """A uniform int in [0, n), n >= 1, without modulo bias (rejection sampling)."""
        if n <= (1 << 64):
            limit = (1 << 64) - ((1 << 64) % n)
            while True:
                x = self.next64()
                if x < limit:
                    return x % n
        # Wider than 64 bits: concatenate outputs, reject out-of-range values.
        bits = n.bit_length()
        while True:
            x = 0
            for _ in range((bits + 63) // 64):
                x = (x << 64) | self.next64()
            x >>= (-bits) % 64
            if x < n:
                return x

    def randint(self, a: int, b: int) -> int:
        """A uniform integer N with a <= N <= b."""
        _check_int(a, "a")
        _check_int(b, "b")
        if b < a:
            raise ValueError(f"randint: empty range [{a}, {b}]")
        return a + self._below(b - a + 1)

    def randrange(self, n: int) -> int:
        """A uniform integer in [0, n), n >= 1."""
        if _check_int(n, "n") < 1:
            raise ValueError(f"randrange: n must be >= 1, got {n}")
        return self._below(n)

    def random(self) -> float:
        """A uniform float in [0.0, 1.0) with 53 random bits."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def choice(self, seq: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        if len(seq) == 0:
            raise IndexError("choice from an empty sequence")
        return seq[self._below(len(seq))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle a list in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self._below(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """k distinct elements of seq, in random order."""
        if not 0 <= _check_int(k, "k") <= len(seq):
            raise ValueError(f"sample: k must be between 0 and {len(seq)}, got {k}")
        pool = list(seq)
        for i in range(k):
            j = i + self._below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def fork(self) -> Rng:
        """A new generator seeded from this one (for an independent sub-stream)."""
        return Rng(self.next64())

    def dump(self) -> int:
        """The whole state as a JSON-able int."""
        return self._state

    @classmethod
    def load(cls, data: int) -> Rng:
        """Rebuild a generator from `dump()` output; ValueError on anything else."""
        if isinstance(data, bool) or not isinstance(data, int) or not 0 <= data <= _MASK:
            raise ValueError(f"bad Rng state: expected an integer in [0, 2**64), got {data!r}")
        rng = cls.__new__(cls)
        rng._state = data
        return rng

    def __repr__(self) -> str:
        return f"Rng.load({self._state})"
