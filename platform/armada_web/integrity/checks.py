"""Every built check run at once (`run_checks`): copied code, behavioural twins, shared accounts and
thrown games, each
finding stored under its key (`findings.record`: a second run updates it and keeps staff's status;
the open ones no longer found are pruned), all of them ranked strongest first.

**Scores across kinds** (docs/integrity.md, "The report"). Each kind's score is 0.5 at the
threshold it reports from and nears 1 as the evidence becomes beyond doubt, so one ranking serves
all kinds:
- a copy: its similarity (0.5 is the copy threshold, 1 the same own code);
- twins: their rarity-weighted agreement rescaled (`integrity.logic.twins.score`: 0.5 at the twin threshold,
  0.75, and 1 for the same own answers on every probe turn);
- shared accounts: the group's weakest tie (0.5 the grouping threshold, 0.9 one mailbox or one
  uploaded archive);
- thrown games: the test's `1 - adjusted p` crowds every flagged pair into 0.99..1, so the ranking
  score is `rank_collusion(adjusted, alpha)` = 1 - 0.5 (adjusted / alpha)^(1/6): 0.5 at the
  false-alarm rate, 0.75 at alpha / 64, 0.95 at alpha x 1e-6 (one chance in 100 million for the
  whole season at alpha 0.01); the test's own figure stays in the evidence (`test_score`).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.db.models.functions import Coalesce
from django.utils import timezone

from armada_web.integrity import findings
from armada_web.integrity.accounts_links import shared_accounts
from armada_web.integrity.behaviour import missing
from armada_web.integrity.collusion import thrown_games
from armada_web.integrity.copies import find_copies
from armada_web.integrity.logic import findings as plain
from armada_web.integrity.logic.collusion import FIELD
from armada_web.integrity.models import AuditAction, AuditEntry, Finding, FindingKind
from armada_web.integrity.twins import find_twins
from armada_web.seasons.models import Season

#: The longest key kept as it is; a longer one (a large group of accounts) is hashed.
KEY_MAX = 190
#: How long after a season's close (or finish) its checks may take before beat sends them again
#: (`unchecked_seasons`): the close's own message was lost, or its worker died midway.
CATCH_UP_AFTER = timedelta(minutes=30)
#: Seasons closed longer ago than this are not caught up by beat (`manage.py integrity` runs them).
CATCH_UP_WITHIN = timedelta(days=30)


def rank_collusion(adjusted: float, alpha: float) -> float:
    """The ranking score of a flagged pair: 0.5 at adjusted p = alpha, rising towards 1 as it falls
    (0.95 at alpha x 1e-6), 1 at p = 0."""
    if alpha <= 0:
        return 0.0
    ratio = min(max(adjusted / alpha, 0.0), 1.0)
    return round(1.0 - 0.5 * ratio ** (1 / 6), 4)


def _key(prefix: str, parts: list[str]) -> str:
    """`prefix:` and the parts joined, or their digest when that is too long for a key."""
    key = f"{prefix}:{','.join(parts)}"
    if len(key) <= KEY_MAX:
        return key
    return f"{prefix}#{hashlib.sha256(key.encode()).hexdigest()}"


def _store(kind: str, season: Season | None, found: list[tuple[str, plain.Finding, float]]) -> list[Finding]:
    """Record `(key, finding, score)` rows of one kind and prune its open ones not among them."""
    stored = [findings.record(kind=kind, key=key, season=season, subjects=list(f.subjects), score=score,
                              reason=f.reason, evidence=f.evidence) for key, f, score in found]
    findings.prune(kind=kind, season=season, keep=[key for key, _, _ in found])
    return stored


def _accounts(season: Season | None) -> list[Finding]:
    found = [(_key("users", list(f.subjects)), f, round(f.score, 4)) for f in shared_accounts(season=season)]
    stored = _store(FindingKind.ACCOUNTS, season, found)
    findings.carry_dismissals(kind=FindingKind.ACCOUNTS, season=season, rows=stored)  # the same people each season
    return stored


def _collusion(season: Season | None) -> list[Finding]:
    rows = []
    for f in thrown_games(season=season):
        loser, *winner = f.evidence["bots"]  # (a bot against the field has no winner: `bots:LOSER>*`)
        evidence: dict[str, Any] = {**f.evidence, "test_score": round(f.score, 6)}
        score = rank_collusion(f.evidence["adjusted"], f.evidence["alpha"])
        key = f"bots:{loser}>{winner[0] if winner else FIELD}"
        rows.append((key, plain.Finding(f.kind, f.subjects, score, f.reason, evidence), score))
    return _store(FindingKind.COLLUSION, season, rows)




def run_checks(*, season: Season | None = None, ran_by: str = "") -> list[Finding]:
    """Run every check for `season` (None: all of ranked play), store each finding under its key
    (staff's status kept; open findings no longer found pruned), note the run in the audit log with
    its counts (and the valid versions not probed yet) as run by `ran_by` (empty: the site itself, a
    season's close), and return the findings, the strongest first. The audit line bears the run's
    start: a season that finished meanwhile (its finals' games unread) is not checked by it."""
    started = timezone.now()
    copies = find_copies(season=season)
    with transaction.atomic():
        twins = find_twins(season=season)
        accounts = _accounts(season)
        collusion = _collusion(season)
        counts = {FindingKind.COPY.value: len(copies), FindingKind.TWIN.value: len(twins),
                  FindingKind.ACCOUNTS.value: len(accounts), FindingKind.COLLUSION.value: len(collusion)}
        unprobed = len(missing())
        note = ", ".join(f"{count} {kind}" for kind, count in counts.items())
        if unprobed:
            note += f"; {unprobed} valid version{'s' if unprobed != 1 else ''} not probed yet for twins"
        entry = AuditEntry.objects.create(action=AuditAction.CHECKED, season=season, by_name=ran_by[:150],
                                          subject=f"season {season.slug}" if season else "all of ranked play",
                                          note=note)
        AuditEntry.objects.filter(pk=entry.pk).update(at=started)  # (`at` is set on creation: the end)
    return findings.ranked([*copies, *twins, *accounts, *collusion])


#: When a season last closed or, once finished, finished: each of the two sends its checks.
STEPPED = Coalesce("finished_at", "closed_at")


def _checked_since_step() -> Exists:
    return Exists(AuditEntry.objects.filter(season=OuterRef("pk"), action=AuditAction.CHECKED,
                                            at__gte=OuterRef("stepped")))


def checked_since_step(*, season: Season) -> bool:
    """Whether a run of the checks for `season` finished (its `checked` audit line) since it closed
    or, once finished, since it finished."""
    return (Season.objects.filter(pk=season.pk, closed_at__isnull=False).annotate(stepped=STEPPED)
            .filter(_checked_since_step()).exists())


def unchecked_seasons(*, now: datetime | None = None) -> list[int]:
    """Seasons closed (or finished) between CATCH_UP_WITHIN and CATCH_UP_AFTER ago with no run of
    their checks since, oldest first: the close and the finish each send them once, after their
    commit, and a message the broker lost (Redis emptied) or a worker killed midway would leave the
    report unmade (or, after the finish, without the finals' games)."""
    now = now or timezone.now()
    return list(Season.objects.filter(closed_at__isnull=False).annotate(stepped=STEPPED)
                .filter(stepped__lte=now - CATCH_UP_AFTER, stepped__gte=now - CATCH_UP_WITHIN)
                .exclude(_checked_since_step()).order_by("stepped", "pk").values_list("pk", flat=True))
