"""Ratings in the database: a version's Rating row, and one ranked result applied to it.

`rate_match` is called inside the transaction that finishes a ranked match (the ladder's receiver
of `matches.signals.match_recorded` dispatches to it), after that transaction's conditional update
proved the match is counted now and never again; `apply` reads and writes only the two Rating
rows (locked) and adds one RatingChange per version. The game itself is counted by the one
function every kind of game uses (`ladder.logic.results.apply_game`, pure), through `advance`,
which `recompute` replays over the history.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import F, Max
from django.utils import timezone

from armada.referee.framing import one_line
from armada.referee.match import MatchOutcome
from armada_web.bots.models import BotVersion
from armada_web.ladder.logic import ratings, results
from armada_web.ladder.models import Rating, RatingChange
from armada_web.ladder.signals import version_benched
from armada_web.matches.models import Match, Participant
from armada_web.matches.services import keep_seat_skills


def predecessor(version: BotVersion) -> Rating | None:
    """The rating `version` starts from: of the bot's earlier versions that have played, the one
    that played last (the one it replaces: an older version pinned back after a bad one, too),
    if any."""
    return (Rating.objects.filter(version__bot_id=version.bot_id, version__number__lt=version.number, games__gt=0)
            .annotate(last_game=Max("version__rating_history__id"))
            .order_by(F("last_game").desc(nulls_last=True), "-version__number").first())


def start_from(before: Rating | None) -> ratings.Skill:
    """The placement start after predecessor `before` (None: fresh)."""
    return ratings.placement_start(ratings.Skill(before.mu, before.sigma) if before else None)


def start_for(version: BotVersion) -> ratings.Skill:
    """Where `version` starts: its predecessor's rating (`predecessor`), else fresh."""
    return start_from(predecessor(version))


def ensure_rating(*, version: BotVersion) -> Rating:
    """The version's Rating row, created at its placement start when it has none (flagged
    `playing` when its version plays: ladder.playing keeps the flag from then on; `placed` when it
    starts from a predecessor, so the ladder shows it there before its first game)."""
    row = Rating.objects.filter(version=version).first()
    if row is not None:
        return row
    before = predecessor(version)
    start = start_from(before)
    playing = BotVersion.objects.playing().filter(pk=version.pk).exists()
    row, _ = Rating.objects.get_or_create(version=version, defaults={
        "mu": start.mu, "sigma": start.sigma, "game": version.bot.game, "playing": playing,
        "placed": before is not None})
    return row


def faulted(status: str) -> bool:
    """A seat's status that is the bot's own fault (protocol.md statuses other than ok)."""
    return status != "ok"


Changes = dict[int, results.Change]


def advance(*, one: Rating, two: Rating, match_id: int, winner: int | None, statuses: tuple[str, str],
            details: tuple[str, str], start: dict[int, ratings.Skill]) -> Changes:
    """Apply one game to two Rating objects in memory (seat 1's, seat 2's): {seat: (before, after, expected)}.

    A version's first rated game starts it at `start[version id]` (its placement start, taken
    when that game is applied); the live update (`apply`) and `recompute` both call this.
    """
    for row in (one, two):
        if row.games == 0 and row.version_id in start:
            row.mu, row.sigma = start[row.version_id].mu, start[row.version_id].sigma
    first, second = results.apply_game(one, two, winner)
    for seat, row in ((1, one), (2, two)):
        status, detail = statuses[seat - 1], details[seat - 1]
        row.faults_in_row = row.faults_in_row + 1 if faulted(status) else 0
        if row.faults_in_row >= settings.ARMADA.bench_faults and not row.benched:
            row.benched = True
            row.benched_reason = one_line(
                f"benched: its last {row.faults_in_row} ranked games ended by its own fault "
                f"(the latest, match {match_id}: {status}: {detail}); upload a new version to play again", 480)
    return {1: first, 2: second}


def rate_match(*, match: Match, seats: list[Participant], outcome: MatchOutcome) -> None:
    """A ranked match of a rated game was recorded (inside its recording transaction): both
    versions' ratings move (`apply`) and each seat keeps its skill before and after, and its expected result."""
    versions = (seats[0].version_id, seats[1].version_id)
    statuses = (outcome.players[0].status, outcome.players[1].status)
    details = (outcome.players[0].detail, outcome.players[1].detail)
    changes = apply(match_id=match.pk, at=timezone.now(), versions=versions,  # type: ignore[arg-type]
                    winner=outcome.winner, statuses=statuses, details=details)
    keep_seat_skills(seats=seats, changes=changes)


def apply(*, match_id: int, at: datetime, versions: tuple[int, int], winner: int | None,
          statuses: tuple[str, str], details: tuple[str, str]) -> Changes:
    """Apply one finished ranked match (inside its recording transaction): {seat: its `results.Change`};
    both Rating rows locked and saved, one RatingChange per version added; a version benched by
    this match is told above (`ladder.signals.version_benched`)."""
    for version_id in versions:
        if not Rating.objects.filter(version_id=version_id).exists():
            ensure_rating(version=BotVersion.objects.get(pk=version_id))
    rows = {row.version_id: row for row in  # (locked in recompute's order: no deadlock between the two)
            Rating.objects.select_for_update().filter(version_id__in=versions).order_by("version_id")}
    one, two = rows[versions[0]], rows[versions[1]]
    start = {row.version_id: start_for(row.version) for row in (one, two) if row.games == 0}
    benched = {row.version_id for row in (one, two) if row.benched}
    changes = advance(one=one, two=two, match_id=match_id, winner=winner, statuses=statuses, details=details,
                      start=start)
    for row in (one, two):
        row.save()
        RatingChange.objects.create(version_id=row.version_id, match_id=match_id, mu=row.mu, sigma=row.sigma, at=at,
                                    games=row.games)
        if row.benched and row.version_id not in benched:
            version_benched.send(sender=Rating, rating=row)
    return changes
