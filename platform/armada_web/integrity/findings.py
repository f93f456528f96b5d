"""Writing findings, of every kind: a check records what it found under a key, so running it
again updates the finding (keeping the status staff gave it), and drops what it no longer finds
(but not what it can no longer judge: `prune`). A shared-accounts group staff dismissed stays
dismissed in the next season's report while its evidence is no stronger, and opens again when a
later run finds it stronger (`carry_dismissals`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User

from armada_web.bots.models import Bot, BotVersion
from armada_web.integrity.models import AuditAction, AuditEntry, Disqualification, Finding, FindingKind, FindingStatus
from armada_web.seasons.models import Season

#: Every report's order: the strongest first, ties by kind, then by key (stable across runs).
STRONGEST_FIRST = ("-score", "kind", "key")


def ranked(rows: list[Finding]) -> list[Finding]:
    """`rows` in the reports' order (`STRONGEST_FIRST`)."""
    return sorted(rows, key=lambda f: (-f.score, f.kind, f.key))


def record(*, kind: str, key: str, season: Season | None, subjects: list[Any], score: float, reason: str,
           evidence: dict[str, Any]) -> Finding:
    """Create or update the finding of (`kind`, `key`, `season`); its status is left as it was."""
    finding, _created = Finding.objects.update_or_create(kind=kind, key=key, season=season, defaults={
        "subjects": subjects, "score": score, "reason": reason[:300], "evidence": evidence,
    })
    return finding


def carry_dismissals(*, kind: str, season: Season | None, rows: list[Finding]) -> list[Finding]:
    """Dismiss the open findings among `rows` (of `kind`, for `season`) that staff never marked and
    whose key staff dismissed in another report (an earlier season, or all of ranked play) at a
    score at least as high (the score when they dismissed it: that report's later runs change it),
    that dismissal being their newest mark of the key anywhere else: the same subjects, no stronger
    evidence. Each is logged as dismissed by the site, naming the decision it follows; staff may
    open it again, and it then stays open. A finding the site dismissed so is opened again, by the
    site, once that no longer holds (a later run scores it higher, or staff's newest mark of the key
    is no longer that dismissal), and then stays open for staff to judge. Returns the findings dismissed."""
    fresh = [f for f in rows if f.status in (FindingStatus.OPEN, FindingStatus.DISMISSED)]
    marked = set(AuditEntry.objects.filter(finding__in=fresh, by_name__gt="").values_list("finding_id", flat=True))
    by_site = dict(AuditEntry.objects.filter(finding__in=fresh, action__in=(AuditAction.DISMISSED, AuditAction.OPENED),
                                             by_name="").order_by("at", "pk").values_list("finding_id", "action"))
    # the site's newest word on each (a dismissal carried here, or an opening for stronger evidence):
    # one the site opened again stays open for staff to judge, whatever later runs score it
    fresh = [f for f in fresh if f.pk not in marked and by_site.get(f.pk) != AuditAction.OPENED
             and (f.status == FindingStatus.OPEN or by_site.get(f.pk) == AuditAction.DISMISSED)]
    if not fresh:
        return []
    decisions: dict[str, AuditEntry] = {}  # each key's newest mark by staff in another report
    marks = (AuditAction.DISMISSED, AuditAction.CONFIRMED, AuditAction.OPENED)
    for entry in (AuditEntry.objects.filter(action__in=marks, by_name__gt="", finding__kind=kind,
                                            finding__key__in=[f.key for f in fresh])
                  .exclude(finding__season=season).select_related("finding__season").order_by("at", "pk")):
        decisions[entry.finding.key] = entry  # type: ignore[union-attr]
    carried = []
    for finding in fresh:
        decision = decisions.get(finding.key)  # a dismissal staff confirmed or reopened since is not carried
        before = decision.finding if decision else None
        dismissed: float | None = None  # the score staff saw, when their newest mark is a dismissal
        if (decision is not None and before is not None and decision.action == AuditAction.DISMISSED
                and before.status == FindingStatus.DISMISSED):
            dismissed = before.score if decision.score is None else decision.score
        if finding.status == FindingStatus.DISMISSED:  # the site's carried dismissal: does it still hold?
            if dismissed is None:
                _reopen(finding, kind, season, "staff's newest mark of this group elsewhere is no longer a dismissal")
            elif finding.score > dismissed:
                _reopen(finding, kind, season, f"the evidence is stronger now than when staff dismissed it "
                                               f"({finding.score:.2f} > {dismissed:.2f})")
            continue
        if dismissed is None or decision is None or before is None or finding.score > dismissed:
            continue
        scope = f"season {before.season.slug}" if before.season else "all of ranked play"
        said = f" by {decision.by_name} on {decision.at:%Y-%m-%d}" + (f": {decision.note}" if decision.note else "")
        finding.status = FindingStatus.DISMISSED
        finding.save(update_fields=["status", "updated"])
        AuditEntry.objects.create(action=AuditAction.DISMISSED, season=season, finding=finding,
                                  subject=_subject(kind, finding), score=finding.score,
                                  note=(f"dismissed in {scope}{said}; the evidence is no stronger "
                                        f"({finding.score:.2f} <= {dismissed:.2f})")[:500])
        carried.append(finding)
    return carried


def _subject(kind: str, finding: Finding) -> str:
    return f"{kind} {', '.join(str(s) for s in finding.subjects)}"[:300]


def _reopen(finding: Finding, kind: str, season: Season | None, why: str) -> None:
    """Open again a finding the site dismissed (`carry_dismissals`), logged as the site's doing."""
    finding.status = FindingStatus.OPEN
    finding.save(update_fields=["status", "updated"])
    AuditEntry.objects.create(action=AuditAction.OPENED, season=season, finding=finding,
                              subject=_subject(kind, finding), score=finding.score,
                              note=f"opened again by the site: {why}"[:500])


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
    a bot (thrown games: the evidence's two bots) or an account (shared accounts). A version whose
    bot's owner deleted their account counts as gone: the copy and twin checks no longer look at it
    (an organiser's trial: the copy findings against a deleted account vanished at the next run);
    the thrown-games check still reads such bots' games, so only a deleted bot is gone there."""
    versions = _ids(v for f in rows if f.about_versions for v in f.subjects)
    bots = _ids(b for f in rows if f.kind == FindingKind.COLLUSION for b in (f.evidence or {}).get("bots", []))
    names = {str(n) for f in rows if f.kind == FindingKind.ACCOUNTS for n in f.subjects}
    have_versions = set(BotVersion.objects.filter(pk__in=versions, bot__owner__isnull=False)
                        .values_list("pk", flat=True))
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
