"""What every integrity check returns: a `Finding` (kind, subjects, score, reason, evidence), plain
data that the report ranks and prints (and that a stored finding copies)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One suspicion: `kind` ("accounts", "collusion", ...), whom it is about (`subjects`: usernames
    for these two kinds), how strong it is (`score`, 0 to 1, higher is stronger), a one-line
    `reason` and the `evidence` (JSON-ready: links, addresses, match ids)."""

    kind: str
    subjects: tuple[str, ...]
    score: float
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)


def ranked(findings: list[Finding]) -> list[Finding]:
    """Strongest first (then by kind and subjects, so the order is stable)."""
    return sorted(findings, key=lambda f: (-f.score, f.kind, f.subjects))
