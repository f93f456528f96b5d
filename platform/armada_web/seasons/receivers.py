"""How the seasons app follows the apps below it (connected in SeasonsConfig.ready()).

- A finals match was recorded: the two entries' finals ratings move, once, in the recording
  transaction (the ladder's receiver ignores the kind: a finals match never moves the ladder),
  and once committed the finals move on (the next match is sent, the round or stage advances).
- The match workers' share: a season in its finals claims its workers (matches.capacity).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from armada.referee.match import MatchOutcome
from armada_web.matches import capacity
from armada_web.matches.models import Match, MatchKind, Participant
from armada_web.matches.signals import match_recorded
from armada_web.seasons import finals, finals_db, services
from armada_web.seasons.entries import skill_of
from armada_web.seasons.models import Entry, FinalsGame, SeasonState


def rate_finals_match(sender: Any, match: Match, seats: list[Participant], outcome: MatchOutcome, **_: Any) -> None:
    if match.kind != MatchKind.FINALS:
        return
    # The game's and the entries' rows only (`of`; Entry's default order joins the season): the
    # season's row is what `finals_db.advance` locks before it creates matches (which count on the
    # bots' records); taking it here, after the recording counted on those records, would be the
    # other order: two hosts recording and advancing at once deadlocked (a game still counted
    # once, after a retry).
    game = FinalsGame.objects.select_for_update(of=("self",)).select_related("season").filter(match=match).first()
    if game is None or game.done or game.season.state != SeasonState.FINALS:
        return  # the season ended before this match was played: it counts for nothing
    entries = Entry.objects.select_for_update(of=("self",)).order_by("pk").in_bulk([game.first_id, game.second_id])
    first, second = entries[game.first_id], entries[game.second_id]
    before = (skill_of(first), skill_of(second))
    after = finals.after_game(before[0], before[1], outcome.winner)
    for seat, entry, old, new in ((1, first, before[0], after[0]), (2, second, before[1], after[1])):
        entry.mu, entry.sigma, entry.games = new.mu, new.sigma, entry.games + 1
        if outcome.winner is None:
            entry.draws += 1
        elif outcome.winner == seat:
            entry.wins += 1
        else:
            entry.losses += 1
        entry.save(update_fields=["mu", "sigma", "games", "wins", "draws", "losses"])
        p = seats[seat - 1]
        p.mu_before, p.sigma_before, p.mu_after, p.sigma_after = old.mu, old.sigma, new.mu, new.sigma
        p.save(update_fields=["mu_before", "sigma_before", "mu_after", "sigma_after"])
    game.counted = True
    game.save(update_fields=["counted"])
    season_id = game.season_id
    transaction.on_commit(lambda: services.play_on(season_id=season_id), robust=True)


def connect() -> None:
    """Connect the receivers and register the finals' claim on the workers (idempotent)."""
    match_recorded.connect(rate_finals_match, sender=Match, dispatch_uid="seasons.rate_finals_match")
    capacity.claim("finals", finals_db.claimed_workers)
