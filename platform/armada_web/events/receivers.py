"""How the events app follows the apps below it (connected in EventsConfig.ready()).

- An event match was recorded: both entries' lines of the table move, once, in the recording
  transaction (3 points a win, 1 a draw; a ladder event's own rating, for its pairing), unless
  the event has finished (its table is frozen); once committed the event plays on.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from armada.referee.match import MatchOutcome
from armada_web.events import formats, scheduling
from armada_web.events.models import EventEntry, EventFormat, EventGame, EventState
from armada_web.ladder import ratings
from armada_web.matches.models import Match, MatchKind, Participant
from armada_web.matches.signals import match_recorded


def count_event_match(sender: Any, match: Match, seats: list[Participant], outcome: MatchOutcome, **_: Any) -> None:
    if match.kind != MatchKind.EVENT:
        return
    # Only the game's and the entries' rows (`of`): the event's row is what scheduling locks before
    # it creates matches; taking it after the recording counted on the bots' records deadlocks.
    game = EventGame.objects.select_for_update(of=("self",)).select_related("event").filter(match=match).first()
    if game is None or game.done or game.event.state != EventState.RUNNING:
        return
    entries = EventEntry.objects.select_for_update(of=("self",)).order_by("pk").in_bulk([game.first_id, game.second_id])
    first, second = entries[game.first_id], entries[game.second_id]
    for seat, entry in ((1, first), (2, second)):
        entry.played += 1
        if outcome.winner is None:
            entry.draws += 1
        elif outcome.winner == seat:
            entry.wins += 1
        else:
            entry.losses += 1
        entry.points = formats.points(entry.wins, entry.draws)
    if game.event.format == EventFormat.LADDER:
        one, two = ratings.Skill(first.mu, first.sigma), ratings.Skill(second.mu, second.sigma)
        if outcome.winner == 2:
            two, one = ratings.update(two, one)
        else:
            one, two = ratings.update(one, two, ratings.Outcome.DRAW if outcome.winner is None else ratings.Outcome.WIN)
        first.mu, first.sigma, second.mu, second.sigma = one.mu, one.sigma, two.mu, two.sigma
    for entry in (first, second):
        entry.save(update_fields=["played", "wins", "draws", "losses", "points", "mu", "sigma"])
    game.counted = True
    game.save(update_fields=["counted"])
    event_id = game.event_id
    transaction.on_commit(lambda: scheduling.play_on(event_id=event_id), robust=True)


def connect() -> None:
    match_recorded.connect(count_event_match, sender=Match, dispatch_uid="events.count_event_match")
