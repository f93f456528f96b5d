"""Thrown games from the database: finished ranked and finals matches read as plain games (each
seat's bot and its rating before the game), tested by `integrity.logic.collusion`, returned as
findings of kind "collusion" (subjects: the owners' usernames, the loser's first;
docs/integrity.md, "Thrown games").

A side is a bot (all its versions): a thrower that uploads a new version keeps throwing as the
same side. Each seat keeps its rating before the game (`Participant.mu_before`, ladder and finals
alike); a seat without one (a match recorded before ratings were kept) is rated at its version's
current ladder rating, which the finding's evidence counts, and a seat with neither is left out.
With a season: its game's ranked matches made while it was open, and its finals, tested as one
family; without: every ranked match.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Q
from django.utils import timezone

from armada_web.bots.models import Bot
from armada_web.integrity.logic import collusion as logic
from armada_web.integrity.logic.findings import Finding, ranked
from armada_web.ladder.logic.ratings import Skill
from armada_web.ladder.models import Rating
from armada_web.matches.models import MatchKind, MatchStatus, Participant, Result
from armada_web.seasons.models import Season

KIND = "collusion"


def _seats(season: Season | None) -> Any:
    seats = Participant.objects.filter(match__status=MatchStatus.FINISHED, bot__isnull=False)
    if season is None:
        return seats.filter(match__kind=MatchKind.RANKED)
    ranked_play = Q(match__kind=MatchKind.RANKED, match__game=season.game, match__created__gte=season.opens,
                    match__created__lt=min(season.closes, timezone.now()))
    finals = Q(match__kind=MatchKind.FINALS, match__finals_game__season=season)
    return seats.filter(ranked_play | finals)


def games(*, season: Season | None = None, stale: list[int] | None = None) -> Iterator[logic.Game]:
    """The finished games to test (see the module); the ids of games rated from current ratings
    are appended to `stale`."""
    rows = (_seats(season).order_by("match_id", "seat")
            .values_list("match_id", "seat", "bot_id", "version_id", "result", "mu_before", "sigma_before"))
    current: dict[int, Skill] = {}
    pending: list[tuple[Any, ...]] = []
    for row in rows.iterator(chunk_size=10_000):
        if pending and pending[0][0] != row[0]:
            pending = []
        pending.append(row)
        if len(pending) != 2:
            continue
        first, second = pending
        skills = [_skill(seat, current) for seat in (first, second)]
        if skills[0] is None or skills[1] is None or first[2] == second[2]:
            continue
        if (first[5] is None or second[5] is None) and stale is not None:
            stale.append(first[0])
        winner = 1 if first[4] == Result.WIN else 2 if second[4] == Result.WIN else None
        yield logic.Game(first[0], str(first[2]), str(second[2]), winner, skills[0], skills[1])


def _skill(seat: tuple[Any, ...], current: dict[int, Skill]) -> Skill | None:
    _, _, _, version_id, _, mu, sigma = seat
    if mu is not None and sigma is not None:
        return Skill(mu, sigma)
    if version_id is None:
        return None
    if version_id not in current:
        rating = Rating.objects.filter(version_id=version_id).values_list("mu", "sigma").first()
        if rating is None:
            return None
        current[version_id] = Skill(*rating)
    return current[version_id]


def thrown_games(*, season: Season | None = None, alpha: float = logic.ALPHA,
                 min_games: int = logic.MIN_GAMES) -> list[Finding]:
    """The pairs of bots whose results depart from their ratings at family-wise false-alarm rate
    `alpha`, as findings, most significant first."""
    stale: list[int] = []
    verdict = logic.thrown(games(season=season, stale=stale), alpha=alpha, min_games=min_games)
    bots = {str(pk): (name, owner or "(deleted)") for pk, name, owner in Bot.objects.filter(
        pk__in={int(side) for t in verdict.flagged for side in (t.loser, t.winner)}).values_list(
        "pk", "name", "owner__username")}
    stale_ids = set(stale)
    return ranked([finding(t, verdict, bots, stale_ids) for t in verdict.flagged])


def finding(test: logic.PairTest, verdict: logic.Verdict, bots: dict[str, tuple[str, str]],
            stale: set[int]) -> Finding:
    """A flagged pair as a finding: the games and the test's figures are the evidence."""
    loser, winner = bots.get(test.loser, ("?", "(deleted)")), bots.get(test.winner, ("?", "(deleted)"))
    reason = (f"{loser[0]} ({loser[1]}) lost {test.losses} of {test.games} decisive games to {winner[0]} "
              f"({winner[1]}) where their ratings predicted {test.expected:.1f} (p = {test.p_value:.2g}, "
              f"{test.adjusted:.2g} over {verdict.counted} pairs; false-alarm rate {verdict.alpha:g})")
    evidence = {"bots": [int(test.loser), int(test.winner)], "games": test.games, "draws": test.draws,
                "losses": test.losses, "expected": round(test.expected, 3), "p_value": test.p_value,
                "adjusted": test.adjusted, "alpha": verdict.alpha, "pairs_tested": verdict.tested,
                "pairs_counted": verdict.counted, "matches": list(test.match_ids), "lost": list(test.lost),
                "rated_from_current": sorted(stale.intersection(test.match_ids))}
    return Finding(KIND, (loser[1], winner[1]), 1.0 - test.adjusted, reason, evidence)
