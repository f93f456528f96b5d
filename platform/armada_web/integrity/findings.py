"""Writing findings, of every kind: a check records what it found under a key, so running it
again updates the finding (keeping the status staff gave it), and drops what it no longer finds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from armada_web.integrity.models import Finding, FindingStatus
from armada_web.seasons.models import Season


def record(*, kind: str, key: str, season: Season | None, subjects: list[Any], score: float, reason: str,
           evidence: dict[str, Any]) -> Finding:
    """Create or update the finding of (`kind`, `key`, `season`); its status is left as it was."""
    finding, _created = Finding.objects.update_or_create(kind=kind, key=key, season=season, defaults={
        "subjects": subjects, "score": score, "reason": reason[:300], "evidence": evidence,
    })
    return finding


def prune(*, kind: str, season: Season | None, keep: Iterable[str]) -> int:
    """Delete the open findings of `kind` for `season` whose key is not in `keep` (the check no
    longer finds them); dismissed and confirmed ones stay, as staff's decisions. Returns how many."""
    kept = set(keep)
    open_findings = Finding.objects.filter(kind=kind, season=season, status=FindingStatus.OPEN)
    stale = [pk for pk, key in open_findings.values_list("pk", "key") if key not in kept]
    for start in range(0, len(stale), 500):
        Finding.objects.filter(pk__in=stale[start:start + 500], status=FindingStatus.OPEN).delete()
    return len(stale)
