"""The newest seeded matches are really played: two starter bots in this process, through the SDK's
referee, with the site's match config; the replay and each seat's log are stored as a worker
stores them (`matches.storage`). Older matches have no files, as if retention had pruned them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from armada.botspec import builtin_names, starter_class
from armada.referee.inprocess import InProcessBot
from armada.referee.match import play_match
from armada_web.devdata.scale.history import Played, Player
from armada_web.matches import storage


def _starter(game: str, name: str, label: str) -> InProcessBot:
    """Starter `name` of `game` as an in-process bot that calls itself `label` (the seat's bot name)."""
    bot: Any = starter_class(name, game)()
    bot.name = label
    return InProcessBot(bot, label=label)


def player(game: str) -> Player:
    """A function that plays one match of `game` between two starters (chosen by the seed) and stores it."""
    names = builtin_names(game)
    config = settings.ARMADA.game(game).match_config

    def play(match_id: int, seed: int, one: str, two: str) -> Played:
        # Two different starters: a starter against itself mostly plays all 200 turns (seconds each).
        first = names[seed % len(names)]
        second = names[(seed % len(names) + 1 + (seed // len(names)) % (len(names) - 1)) % len(names)]
        outcome = play_match(game, {1: _starter(game, first, one), 2: _starter(game, second, two)}, seed=seed,
                             config=config)
        replay = storage.save_replay(match_id, 1, outcome.replay)
        logs = tuple(storage.save_log(match_id, 1, seat, outcome.players[seat - 1].log) for seat in (1, 2))
        reports = outcome.players
        return Played(outcome.winner, outcome.result.to_dict(), (reports[0].status, reports[1].status),
                      (reports[0].detail, reports[1].detail), replay, (logs[0], logs[1]))

    return play
