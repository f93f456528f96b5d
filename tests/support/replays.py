"""Finished ranked matches with stored replays, made without a worker (the replays' list, the dataset CLI)."""

from __future__ import annotations

import datetime as dt
import importlib
from functools import cache
from typing import Any


@cache
def played(game: str = "galaxy", seed: int = 3) -> dict[str, Any]:
    """A short real replay of two starters (in this process), played once per process by `armada.run`."""
    import armada

    bots = [importlib.import_module(f"armada.starters.{game}.{name}").Bot() for name in ("greedy", "random")]
    config = {"max_turns": 4} if game == "galaxy" else None
    return armada.run(game, bots, seed=seed, config=config).replay


def public_match(first: Any, second: Any, *, ratings: tuple[tuple[float, float] | None, ...] = ((25.0, 3.0),) * 2,
                 finished: dt.datetime | None = None, kind: str = "ranked", status: str = "finished",
                 keep_facts: bool = True, seed: int = 3) -> Any:
    """A match of versions `first` and `second` with a stored replay; `ratings`: each seat's (mu, sigma)
    before it (None: unrated); `keep_facts=False` stores it as before the replay's size and checksum
    were kept."""
    from armada_web.matches import storage
    from armada_web.matches.models import Match, Participant

    replay = played(first.bot.game)
    at = finished or dt.datetime.now(dt.UTC)
    match = Match.objects.create(game=first.bot.game, seed=seed, kind=kind, status=status, attempts=1, finished=at,
                                 turns=replay["result"].get("turns"), outcome=replay["result"])
    stored = storage.store_replay(match.pk, 1, replay)
    Match.objects.filter(pk=match.pk).update(replay=stored.name, replay_size=stored.size if keep_facts else None,
                                             replay_sha256=stored.sha256 if keep_facts else "")
    for seat, version, other, rating in ((1, first, second, ratings[0]), (2, second, first, ratings[1])):
        mu, sigma = rating if rating is not None else (None, None)
        Participant.objects.create(match=match, version=version, bot_id=version.bot_id, opponent_id=other.bot_id,
                                   name=version.bot.name, seat=seat, result="draw", status="ok",
                                   mu_before=mu, sigma_before=sigma)
    match.refresh_from_db()
    return match
