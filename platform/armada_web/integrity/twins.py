"""Behavioural twins in the database: versions of different owners whose behaviour signatures
(`integrity.behaviour`) agree far beyond what the starters share and what their rating gap
predicts (`integrity.logic.twins`), kept as `twin` findings with their agreement, the expected
one, and the turns where they gave the same rare answers.

As for copies, the sides are a bot's owner and its team (`integrity.sides`), and a finding is about a pair of
bots (key `bots:LOW-HIGH`), showing the pair of their versions that agreed best. The population
that weighs answers and predicts agreement is every probed version of the game (a season's
check reports only the pairs touching its versions).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from armada_web.bots.models import BotVersion
from armada_web.integrity import findings
from armada_web.integrity.behaviour import answers_of
from armada_web.integrity.copies import described, scope, who
from armada_web.integrity.logic import probes
from armada_web.integrity.logic import twins as logic
from armada_web.integrity.models import Behaviour, Finding, FindingKind
from armada_web.integrity.sides import COMPARED, sides_of
from armada_web.ladder.models import Rating
from armada_web.seasons.models import Season
from armada_web.web.errors import Invalid

#: Agreed turns shown in a finding's evidence (the rarest answers first).
TURNS_SHOWN = 10
#: Longest text of one answer in the evidence.
ANSWER_CHARS = 300


@dataclass(frozen=True)
class _Pair:
    twin: logic.Twin
    population: logic.Population
    probe_set: probes.ProbeSet


def find_twins(*, season: Season | None = None, threshold: float = logic.THRESHOLD) -> list[Finding]:
    """Write the `twin` findings of `season` (pairs touching its versions: its entries, or its
    game's playing versions before the close) or, without one, of all valid versions; drop the
    open ones no longer found; return them, the strongest first. Invalid for a threshold outside
    (0, 1]."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold <= 1:
        raise Invalid(f"the twin threshold must be a number above 0 and at most 1, not {threshold!r}")
    wanted = set(scope(season))
    best: dict[tuple[int, int], _Pair] = {}
    for game in ([season.game] if season else list(probes.GAMES)):
        if not Behaviour.objects.filter(version__bot__game=game).exists():
            continue
        probe_set = probes.probe_set(game)
        signatures, bots = _signatures(game, probe_set.digest)
        found, population = logic.find(signatures, probe_set.shared(), threshold=threshold)
        sides = sides_of({bots[version] for twin in found for version in (twin.a, twin.b)})
        for twin in found:
            if twin.a not in wanted and twin.b not in wanted:
                continue
            if sides.same(bots[twin.a], bots[twin.b]):
                continue  # one owner's or one team's two bots
            pair = (min(bots[twin.a], bots[twin.b]), max(bots[twin.a], bots[twin.b]))
            if pair not in best or _strength(twin) > _strength(best[pair].twin):
                best[pair] = _Pair(twin, population, probe_set)
    written = [_record(season, f"bots:{low}-{high}", found, threshold) for (low, high), found in sorted(best.items())]
    findings.prune(kind=FindingKind.TWIN, season=season, keep=[f.key for f in written])
    return findings.ranked(written)


def _strength(twin: logic.Twin) -> tuple[float, int, int]:
    return twin.agreement.score, -min(twin.a, twin.b), -max(twin.a, twin.b)


def _signatures(game: str, digest: str) -> tuple[list[logic.Signature], dict[int, int]]:
    """Every signature of the game's current probe set whose bot has an owner, and each version's bot."""
    rows = (Behaviour.objects.filter(digest=digest, version__bot__game=game, version__bot__owner__isnull=False)
            .values_list("version_id", "version__bot_id", "version__bot__owner_id", "hashes"))
    ratings = dict(Rating.objects.filter(version__bot__game=game).values_list("version_id", "mu"))
    signatures, bots = [], {}
    for version_id, bot_id, owner_id, hashes in rows.iterator(chunk_size=2000):
        signatures.append(logic.Signature(version_id, owner_id, ratings.get(version_id),
                                          probes.unpack(bytes(hashes))))
        bots[version_id] = bot_id
    return signatures, bots


def _record(season: Season | None, key: str, found: _Pair, threshold: float) -> Finding:
    """The finding of a pair: the earlier upload first."""
    twin = found.twin
    versions = {v.pk: v for v in BotVersion.objects.filter(pk__in=[twin.a, twin.b]).select_related("bot__owner")}
    a, b = sorted(versions.values(), key=lambda v: (v.created, v.pk))
    agreement = twin.agreement
    evidence: dict[str, Any] = {
        "agreement": round(agreement.score, 4), "expected": round(twin.expected, 4),
        "spread": round(twin.spread, 4), "z": round(twin.z, 1), "rating_gap": twin.gap,
        "pairs_sampled": twin.pairs_sampled, "baseline": twin.basis, "agreed": len(agreement.agreed),
        "own": [agreement.own_a, agreement.own_b] if a.pk == twin.a else [agreement.own_b, agreement.own_a],
        "positions": len(found.probe_set.turns), "probe_set": found.probe_set.digest,
        "owners_probed": found.population.owners,
        "first": a.pk, "versions": [described(a), described(b)], "compared": COMPARED,
    }
    evidence.update(_turns(found, a, b))
    reason = (f"{who(b)} gives the same answers as {who(a)} on {len(agreement.agreed)} probe turns "
              f"where they differ from the starters (rarity-weighted agreement {agreement.score:.0%}; "
              f"{expected_words(twin)})")
    return findings.record(kind=FindingKind.TWIN, key=key, season=season, subjects=[a.pk, b.pk],
                           score=logic.score(agreement.score, threshold), reason=reason, evidence=evidence)


def _gap_words(gap: str) -> str:
    return "of unknown rating gap" if gap == logic.UNRATED else f"{gap} apart in rating"


def expected_words(twin: logic.Twin) -> str:
    """What the pair's agreement is measured against, saying where that figure comes from (a trial
    read a figure borrowed from the whole population as the pairs of its rating gap's)."""
    figure = f"agree {twin.expected:.0%} ± {twin.spread:.0%} ({twin.pairs_sampled} pairs)"
    if twin.basis == logic.GAP:
        return f"pairs {_gap_words(twin.gap)} {figure}"
    if twin.basis == logic.ALL:
        few = "with an unrated side" if twin.gap == logic.UNRATED else f"{twin.gap} apart in rating"
        return f"pairs of any rating gap {figure}; too few pairs {few} to measure apart"
    return (f"no agreement expected: {twin.pairs_sampled} pairs of versions are too few to measure what "
            f"pairs agree (at least {logic.BUCKET_MIN})")


def _turns(found: _Pair, a: BotVersion, b: BotVersion) -> dict[str, Any]:
    """The agreed turns, the rarest answers first, each with its answer when it is still stored."""
    twin, population = found.twin, found.population
    positions = found.probe_set.turns
    own = population.owns[twin.a]
    rarest = sorted(twin.agreement.agreed, key=lambda i: (-population.weights[i][own[i]], i))[:TURNS_SHOWN]
    rows = {row.version_id: row for row in Behaviour.objects.filter(version_id__in=[a.pk, b.pk])}
    kept = {pk: answers_of(row) for pk, row in rows.items()}
    source = kept.get(a.pk) or kept.get(b.pk)
    turns = []
    for i in rarest:
        probe, turn, phase = positions[i]
        entry: dict[str, Any] = {"position": i, "probe": probe, "turn": turn, "phase": phase,
                                 "owners": population.givers(i, own[i]), "of": population.owners}
        if source is not None and i in source:
            text = json.dumps(source[i], sort_keys=True, separators=(",", ":"))
            entry["answer"] = text if len(text) <= ANSWER_CHARS else text[:ANSWER_CHARS] + "..."
        turns.append(entry)
    result: dict[str, Any] = {"turns": turns}
    gone = [pk for pk in (a.pk, b.pk) if kept.get(pk) is None]
    if gone:
        result["answers_note"] = (f"the answers of version{'s' if len(gone) > 1 else ''} "
                                  f"{' and '.join(map(str, gone))} are no longer stored"
                                  + ("" if source is not None else ": the turns are listed without them"))
    return result
