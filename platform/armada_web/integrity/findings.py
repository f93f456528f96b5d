"""Writing findings, of every kind: a check records what it found under a key, so running it
again updates the finding (keeping the status staff gave it), and drops what it no longer finds
(but not what it can no longer judge: `prune`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User

from armada_web.bots.models import Bot, BotVersion
from armada_web.integrity.models import Disqualification, Finding, FindingKind, FindingStatus
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
    longer finds them); dismissed and confirmed ones stay, as staff's decisions. So do two kinds of
    open ones the check cannot judge again: a finding a disqualification was made from (its record),
    and one whose bot, version or account has been deleted since (the check no longer sees it, and
    deleting a bot must not erase the evidence against it). Returns how many were deleted."""
    kept = set(keep)
    open_findings = Finding.objects.filter(kind=kind, season=season, status=FindingStatus.OPEN)
    candidates = [f for f in open_findings.only("pk", "key", "kind", "subjects", "evidence") if f.key not in kept]
    cited = set(Disqualification.objects.filter(finding_id__in=[f.pk for f in candidates])
                .values_list("finding_id", flat=True))
    gone = _subjects_gone([f for f in candidates if f.pk not in cited])
    stale = [f.pk for f in candidates if f.pk not in cited and f.pk not in gone]
    for start in range(0, len(stale), 500):
        Finding.objects.filter(pk__in=stale[start:start + 500], status=FindingStatus.OPEN).delete()
    return len(stale)


def _ids(values: Iterable[Any]) -> set[int]:
    return {value for value in values if isinstance(value, int) and not isinstance(value, bool)}


def _subjects_gone(rows: list[Finding]) -> set[int]:
    """The findings among `rows` one of whose subjects no longer exists: a version (a copy, twins),
    a bot (thrown games: the evidence's two bots) or an account (shared accounts)."""
    versions = _ids(v for f in rows if f.about_versions for v in f.subjects)
    bots = _ids(b for f in rows if f.kind == FindingKind.COLLUSION for b in (f.evidence or {}).get("bots", []))
    names = {str(n) for f in rows if f.kind == FindingKind.ACCOUNTS for n in f.subjects}
    have_versions = set(BotVersion.objects.filter(pk__in=versions).values_list("pk", flat=True))
    have_bots = set(Bot.objects.filter(pk__in=bots).values_list("pk", flat=True))
    have_names = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    gone = set()
    for f in rows:
        if f.about_versions:
            lost = any(v not in have_versions for v in f.subjects)
        elif f.kind == FindingKind.COLLUSION:
            lost = any(b not in have_bots for b in (f.evidence or {}).get("bots", []))
        elif f.kind == FindingKind.ACCOUNTS:
            lost = any(str(n) not in have_names for n in f.subjects)
        else:
            lost = False
        if lost:
            gone.add(f.pk)
    return gone
