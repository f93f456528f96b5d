"""Copied code in the database: versions of different sides whose own code (beyond the SDK's
shared code) matches, found through the inverted index (`integrity.logic.copies.CopyIndex`) and
kept as `copy` findings with their similarity, which came first and the passages side by side
(computed once per pair of versions: a later run keeps them while the pair, the scheme and the
shared code are the same, since a version's sources never change).

The sides compared are a bot's owner and its team (`integrity.sides`: code shared in a team is
not copied). A finding is about a pair of bots (its key is
`bots:LOW-HIGH`), showing the pair of their versions that matched best, so a bot copied in
every version is one line of the report, not one per pair of versions. The original is the bot
whose code matched first (its oldest matching version), not the older of the pair shown: a
season compares its entries, often later versions of both. A finding staff confirmed keeps the
versions they confirmed it for.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from armada_web.bots.models import BotVersion, VersionStatus
from armada_web.integrity import findings
from armada_web.integrity.fingerprints import fingerprint_missing, hashes_of, sources
from armada_web.integrity.logic import copies as copies_logic
from armada_web.integrity.logic import fingerprints as fingerprints_logic
from armada_web.integrity.models import Finding, FindingKind, FindingStatus, Fingerprint
from armada_web.integrity.sides import COMPARED, sides_of
from armada_web.seasons.models import Entry, Season
from armada_web.web.errors import Invalid


@dataclass(frozen=True)
class _Version:
    """What the comparison needs of a fingerprinted version."""

    id: int
    bot: int
    game: str
    created: datetime.datetime
    hashes: list[int]


def find_copies(*, season: Season | None = None, threshold: float = copies_logic.THRESHOLD) -> list[Finding]:
    """Write the `copy` findings of `season` (its entries' versions, or its game's playing versions
    before the close) or, without one, of all ranked play (every valid version), each compared with
    every fingerprinted version of its game of another side (`integrity.sides`); fingerprints what lacks one first,
    drops the open findings no longer found, and returns the findings, the strongest first.
    Invalid for a threshold outside (0, 1]."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
        raise Invalid(f"the copy threshold must be a number above 0 and at most 1, not {threshold!r}")
    fingerprint_missing()
    known = _fingerprinted(season.game if season else None)
    shared = copies_logic.shared_hashes()
    indexes: dict[str, copies_logic.CopyIndex] = {}
    for version in known.values():
        indexes.setdefault(version.game, copies_logic.CopyIndex(shared)).add(version.id, version.hashes)
    sides = sides_of(version.bot for version in known.values())
    best: dict[tuple[int, int], tuple[float, int, int]] = {}
    for version_id in scope(season):
        query = known.get(version_id)
        if query is None:
            continue
        for match in indexes[query.game].query(query.hashes, threshold=threshold, skip=[query.id]):
            other = known[match.key]
            if sides.same(query.bot, other.bot):
                continue
            pair = (min(query.bot, other.bot), max(query.bot, other.bot))
            candidate = (match.similarity.score, min(query.id, other.id), max(query.id, other.id))
            if pair not in best or _strength(candidate) > _strength(best[pair]):
                best[pair] = candidate
    by_bot: dict[int, list[_Version]] = {}
    for version in known.values():
        by_bot.setdefault(version.bot, []).append(version)
    written = [_record(season, f"bots:{low}-{high}", known[one], known[two], shared,
                       firsts=(_first_match(by_bot[low], by_bot[high], shared, threshold),
                               _first_match(by_bot[high], by_bot[low], shared, threshold)))
               for (low, high), (_score, one, two) in sorted(best.items())]
    findings.prune(kind=FindingKind.COPY, season=season, keep=[f.key for f in written])
    return findings.ranked(written)


def _first_match(mine: list[_Version], theirs: list[_Version], shared: frozenset[int], threshold: float) -> _Version:
    """The oldest of a bot's versions (`mine`) that matches one of the other bot's (`theirs`), at
    the threshold: when that code first appeared on the bot. A season's check compares its entries,
    which may be later versions than the ones copied; the original is the bot that had the code first."""
    for version in sorted(mine, key=lambda v: (v.created, v.id)):
        if any(copies_logic.similarity(version.hashes, other.hashes, shared).score >= threshold for other in theirs):
            return version
    return min(mine, key=lambda v: (v.created, v.id))  # (the pair found matches: not reached)


def _strength(candidate: tuple[float, int, int]) -> tuple[float, int, int]:
    """The order of two bots' matching version pairs: the higher score, then the older versions."""
    score, one, two = candidate
    return score, -one, -two


def _fingerprinted(game: str | None) -> dict[int, _Version]:
    """Every version with a fingerprint of the current scheme whose bot has an owner (of `game`)."""
    rows = Fingerprint.objects.filter(scheme=fingerprints_logic.SCHEME, version__bot__owner__isnull=False)
    if game is not None:
        rows = rows.filter(version__bot__game=game)
    found = {}
    for row in rows.select_related("version__bot").only(
            "hashes", "version__id", "version__created", "version__bot__id", "version__bot__owner_id",
            "version__bot__game").iterator(chunk_size=2000):
        bot = row.version.bot
        found[row.version_id] = _Version(row.version_id, bot.pk, bot.game, row.version.created,
                                         hashes_of(row))
    return found


def scope(season: Season | None) -> list[int]:
    """The versions a check is about: a season's entries (its game's playing versions before the
    close), or every valid version."""
    if season is None:
        return list(BotVersion.objects.filter(status=VersionStatus.VALID).values_list("pk", flat=True))
    entered = list(Entry.objects.filter(season=season, version__isnull=False).values_list("version_id", flat=True))
    if entered:
        return [pk for pk in entered if pk is not None]
    return list(BotVersion.objects.playing().of_game(season.game).values_list("pk", flat=True))


#: Seconds between the two bots' first matching versions below which the times do not tell which
#: is the copy: two uploads a minute apart are one plan, or one account watching the other.
SAME_TIME_S = 60


def _record(season: Season | None, key: str, one: _Version, two: _Version, shared: frozenset[int], *,
            firsts: tuple[_Version, _Version]) -> Finding:
    """The finding of a pair of versions: `a` is the original's (the bot whose code matched first,
    `firsts` being each bot's oldest matching version), `b` the copier's. A finding staff confirmed
    keeps what they confirmed: a later run does not point it at other versions."""
    existing = Finding.objects.filter(kind=FindingKind.COPY, key=key, season=season).first()
    if existing is not None and existing.status == FindingStatus.CONFIRMED:
        return existing
    original, copier = sorted(firsts, key=lambda v: (v.created, v.id))
    first, second = (one, two) if one.bot == original.bot else (two, one)
    similarity = copies_logic.similarity(first.hashes, second.hashes, shared)
    ids = {first.id, second.id, original.id, copier.id}
    versions = {v.pk: v for v in BotVersion.objects.filter(pk__in=ids).select_related("bot__owner")}
    a, b = versions[first.id], versions[second.id]
    evidence: dict[str, Any] = {
        "similarity": round(similarity.score, 4), "jaccard": round(similarity.jaccard, 4),
        "a_in_b": round(similarity.a_in_b, 4), "b_in_a": round(similarity.b_in_a, 4),
        "shared": similarity.shared, "own": [similarity.own_a, similarity.own_b],
        "first": a.pk, "versions": [described(a), described(b)], "compared": COMPARED,
    }
    before = (existing.evidence if existing is not None else None) or {}
    basis = _basis(shared)
    if ([v.get("id") for v in before.get("versions", [])] == [a.pk, b.pk] and before.get("passages")
            and before.get("passages_basis") == basis):
        evidence.update(passages=before["passages"], passages_basis=basis)  # a version's sources never change
    else:
        evidence.update(_passages(a, b, shared), passages_basis=basis)
    reason = f"{who(b)} shares {similarity.score:.0%} of its own code with {who(a)}"
    gap = (copier.created - original.created).total_seconds()
    if gap < SAME_TIME_S:  # an organiser's trial: 0.14 s apart named the copier
        apart = "less than 1 s" if gap < 1 else f"{int(gap)} s"  # (floored: never "60 s" under a minute)
        reason += f"; the two bots had that code {apart} apart, too close for the times to tell which is the copy"
        evidence["order_unknown"] = True
    elif a.created <= b.created:
        reason += f", uploaded {_duration((b.created - a.created).total_seconds())} earlier"
    else:  # the entries compared are later versions: say when each bot first had the code
        had, took = versions[original.id], versions[copier.id]
        evidence["first_matches"] = [described(had), described(took)]
        reason += (f"; {had.bot.name} had that code {_duration((took.created - had.created).total_seconds())} "
                   f"earlier (its v{had.number}; {took.bot.name}'s first such version is v{took.number})")
    return findings.record(kind=FindingKind.COPY, key=key, season=season, subjects=[a.pk, b.pk],
                           score=round(similarity.score, 4), reason=reason, evidence=evidence)


@functools.cache
def _digest_of(shared: frozenset[int]) -> str:
    return hashlib.sha256(fingerprints_logic.pack(shared)).hexdigest()[:16]


def _basis(shared: frozenset[int]) -> str:
    """What a finding's passages depend on besides the two versions' own sources: the
    fingerprints' scheme and the shared code (a new SDK may share more)."""
    return f"{fingerprints_logic.SCHEME}:{_digest_of(shared)}"


def _passages(a: BotVersion, b: BotVersion, shared: frozenset[int]) -> dict[str, Any]:
    """The matching passages (fingerprinted again with their lines), or a note when a source is gone."""
    source_a, source_b = sources(a), sources(b)
    if source_a is None or source_b is None:
        gone = a if source_a is None else b
        return {"passages": None, "passages_note": f"the sources of version {gone.pk} are no longer stored"}
    found = copies_logic.passages(fingerprints_logic.fingerprint(source_a), fingerprints_logic.fingerprint(source_b),
                                  shared)
    return {"passages": [p.as_dict() for p in found]}


def described(version: BotVersion) -> dict[str, Any]:
    """A version as the evidence shows it: id, bot, number, owner, upload time."""
    owner = version.bot.owner
    return {"id": version.pk, "bot": version.bot.name, "bot_id": version.bot_id, "number": version.number,
            "owner": owner.get_username() if owner is not None else None, "uploaded": version.created.isoformat()}


def who(version: BotVersion) -> str:
    """`alice's raider v3`."""
    owner = version.bot.owner
    return f"{owner.get_username() if owner else '(deleted)'}'s {version.bot.name} v{version.number}"


def _duration(seconds: float) -> str:
    """A duration in words: `40 s`, `12 min`, `5 h`, `3 days`."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"
