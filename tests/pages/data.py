"""Rows for the page tests: users, bots, a finished Galaxy match with a real replay and logs
(two starter ProcessBots through `play_match`, no Docker), ratings and a Mothership league."""

from __future__ import annotations

import datetime as dt
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from armada.botspec import starter_file
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from armada.timings import totals

EVIL = "<script>window.__pwned=1</script><img src=x onerror=window.__pwned=1>"
EVIL_RACE = "<img src=x onerror=window.__pwned=1>"


@dataclass
class Arena:
    alice: Any
    bob: Any
    alpha: Any  # alice's Galaxy version
    beta: Any  # bob's Galaxy version
    match: Any
    replay: dict[str, Any]
    race_a: Any  # Mothership versions in the league
    race_b: Any


#: A Galaxy bot that relays to a starter and writes a line to stderr for each request.
CHATTY = """
import json, subprocess, sys
child = subprocess.Popen([sys.executable, STARTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for line in sys.stdin:
    msg = json.loads(line)
    print("chatty:", msg["type"], msg.get("turn", ""), file=sys.stderr, flush=True)
    child.stdin.write(line)
    child.stdin.flush()
    if msg["type"] == "end":
        break
    sys.stdout.write(child.stdout.readline())
    sys.stdout.flush()
"""

ORDERS_A = {"mothership": {"defence": 30}, "fighters": [{"attack": 7, "defence": 7, "pattern": [3]}] * 5}
ORDERS_B = {"mothership": {"defence": 10}, "fighters": [{"attack": 11, "defence": 7, "pattern": [5]}] * 5}


#: A Galaxy bot that plays nothing and crashes with a traceback in the scout request of turn 3.
CRASHER = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    print("crasher:", msg["type"], msg.get("turn", ""), file=sys.stderr, flush=True)
    if msg["type"] == "init":
        reply = {"name": "Crasher"}
    elif msg.get("turn") == 3:
        raise ZeroDivisionError("division by zero, on purpose")
    elif msg["type"] == "scout":
        reply = {"probes": []}
    elif msg["type"] == "command":
        reply = {"fleets": []}
    else:
        break
    print(json.dumps({"id": msg["id"], **reply}), flush=True)
"""


def finished_match(first: Any, second: Any, folder: Path, seed: int = 3,
                   turns: int = 40, source: str | None = None) -> tuple[Any, dict[str, Any]]:
    """A finished ranked Galaxy match of two versions, played now by the prober (chatty) and greedy starters
    (seat 1 runs `source` instead when given)."""
    from armada_web.matches import storage, tallies
    from armada_web.matches.models import Match, Participant

    chatty = folder / "chatty.py"
    chatty.write_text(source or CHATTY.replace("STARTER", repr(str(starter_file("prober", "galaxy")))))
    bots = {1: ProcessBot([sys.executable, str(chatty)], label=first.bot.name),
            2: ProcessBot([sys.executable, str(starter_file("greedy", "galaxy"))], label=second.bot.name)}
    outcome = play_match("galaxy", bots, seed=seed, config={"max_turns": turns})
    result = outcome.result
    now = dt.datetime.now(dt.UTC)
    match = Match.objects.create(game="galaxy", seed=seed, status="finished", attempts=1, started=now,
                                 finished=now, turns=result.turns, engine_version="test",
                                 outcome={"winner": result.winner, "outcome": result.outcome, "turns": result.turns})
    match.replay.name = storage.save_replay(match.pk, 1, outcome.replay)
    match.save(update_fields=["replay"])
    seats = []
    for player, version, other in zip(outcome.players, (first, second), (second, first), strict=True):
        res = "draw" if result.winner is None else ("win" if result.winner == player.seat else "loss")
        p = Participant.objects.create(match=match, version=version, bot_id=version.bot_id, opponent_id=other.bot_id,
                                       name=version.bot.name, seat=player.seat,
                                       result=res, status=player.status, detail=player.detail,
                                       mu_before=25, sigma_before=8.3, mu_after=26 if res == "win" else 24,
                                       sigma_after=7.5, timing=totals(outcome.replay, player.seat))
        p.log.name = storage.save_log(match.pk, 1, player.seat, player.log)
        p.save(update_fields=["log"])
        seats.append(p)
    tallies.count_made(seats=seats)
    tallies.count_result(seats=seats)
    return match, outcome.replay


def ratings(version: Any, match: Any, scores: list[float]) -> None:
    """A Rating and a rating history for the version (one change per score)."""
    from armada_web.ladder.models import Rating, RatingChange

    Rating.objects.update_or_create(version=version, defaults={
        "mu": scores[-1] + 3 * 4, "sigma": 4, "games": len(scores), "wins": len(scores) - 1, "losses": 1})
    start = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    for i, score in enumerate(scores):
        m = match if i == len(scores) - 1 else type(match).objects.create(game="galaxy", seed=i, status="finished")
        RatingChange.objects.create(version=version, match=m, mu=score + 3 * 4, sigma=4,
                                    at=start + dt.timedelta(hours=i), games=i + 1)


def build(make_user: Any, valid_version: Any, folder: Path) -> Arena:
    from armada_web.bots.models import Bot, BotVersion
    from armada_web.ladder.league import sync_league

    alice = make_user("alice", first_name=EVIL)
    bob = make_user("bob")
    alpha = valid_version(alice, "alpha")
    Bot.objects.filter(pk=alpha.bot_id).update(description=EVIL)
    beta = valid_version(bob, "beta", starter="random")
    match, replay = finished_match(alpha, beta, folder)
    ratings(alpha, match, [1.0, 3.5, 2.0, 6.0])
    ratings(beta, match, [0.5, -1.0])
    race_a = valid_version(alice, "hammer", game="mothership", orders=ORDERS_A)
    BotVersion.objects.filter(pk=race_a.pk).update(race_name=EVIL_RACE)
    race_b = valid_version(bob, "glass", game="mothership", orders=ORDERS_B)
    sync_league()
    return Arena(alice, bob, alpha, beta, match, replay, race_a, race_b)


def recorded_match(first: Any, second: Any, winner: int | None, *, statuses: tuple[str, str] = ("ok", "ok"),
                   details: tuple[str, str] = ("", ""), kind: str = "ranked", turns: int = 30,
                   minutes_ago: int = 0) -> Any:
    """A finished match of two versions as the database keeps it (no replay, no log), for pages that
    count and list matches."""
    from armada_web.matches import tallies
    from armada_web.matches.models import Match, Participant

    at = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=minutes_ago)
    match = Match.objects.create(game=first.bot.game, seed=1, kind=kind, status="finished", attempts=1, finished=at,
                                 turns=turns, outcome={"winner": winner, "outcome": "elimination", "turns": turns})
    seats = []
    for seat, version, other in ((1, first, second), (2, second, first)):
        result = "draw" if winner is None else ("win" if winner == seat else "loss")
        seats.append(Participant.objects.create(
            match=match, version=version, bot_id=version.bot_id, opponent_id=other.bot_id, name=version.bot.name,
            seat=seat, result=result, status=statuses[seat - 1], detail=details[seat - 1]))
    tallies.count_made(seats=seats)  # the kept counts, as create_match and record keep them
    tallies.count_result(seats=seats)
    return match
