"""The Django side of bench/scale.py, run once per seeded site (its DATABASE_URL in the environment):
the site's request paths, then one matchmaker tick and one ranked result's recording, each timed
ROUNDS times inside a transaction that is rolled back (the site is left as it was). Prints JSON.

    DATABASE_URL=... .venv/bin/python bench/_scale_probe.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 9
TICK_MATCHES = 8  # matches one tick makes (the ranked queue's depth for four workers)
DEEP = 1000  # entries into the busiest bot's match list


class Rollback(Exception):
    """Leaves the timed transaction without committing."""


def rolled_back(body: Any) -> float:
    """Seconds `body()` took inside a transaction that is then rolled back."""
    from django.db import transaction

    seconds = 0.0
    try:
        with transaction.atomic():
            seconds = body()
            raise Rollback
    except Rollback:
        pass
    return seconds


def paths() -> dict[str, str]:
    """The bench's requests on this site."""
    from django.test import Client

    from armada_web.ladder.queries import ladder
    from armada_web.matches.models import Match, MatchKind, MatchStatus
    from armada_web.matches.queries import busiest_bot

    client = Client()
    last = max(1, -(-ladder("galaxy").count() // 50))
    bot = busiest_bot()
    url = f"/api/matches/?bot={bot}"
    seen = 0
    while seen < DEEP:  # follow `next` as a client would, whatever the list's paging
        page = client.get(url).json()
        seen += len(page["results"])
        url = page["next"].split("testserver", 1)[-1]
    match = (Match.objects.filter(kind=MatchKind.RANKED, status=MatchStatus.FINISHED).exclude(replay="")
             .order_by("-id").values_list("pk", flat=True).first())
    return {"ladder": "/ladder/galaxy/", "ladder-last": f"/ladder/galaxy/?page={last}",
            "league": "/ladder/mothership/", "busiest-bot": f"/bots/{bot}/", "bot-matches-deep": url,
            "match": f"/matches/{match}/", "api-ladder": "/api/ladder/galaxy/",
            "api-matches": "/api/matches/?game=galaxy", "api-bots": "/api/bots/",
            "status": "/status/"}


def tick_seconds() -> list[float]:
    """One matchmaker tick making TICK_MATCHES matches, ROUNDS times."""
    from django.utils import timezone

    from armada_web.ladder import matchmaking

    workers = (TICK_MATCHES + matchmaking.in_flight() + 1) // 2

    def tick() -> float:
        start = time.perf_counter()
        made = matchmaking.fill_queue(workers=workers, now=timezone.now())
        seconds = time.perf_counter() - start
        assert len(made) >= TICK_MATCHES - 1, made
        return seconds

    return [rolled_back(tick) for _ in range(ROUNDS)]


def record_seconds() -> list[float]:
    """Recording one finished ranked match (the worker's last step, ratings included), ROUNDS times."""
    from armada.referee.inprocess import InProcessBot
    from armada.referee.match import play_match
    from armada.starters.galaxy import greedy, prober
    from armada_web.bots.models import BotVersion
    from armada_web.jobs import leases
    from armada_web.matches import execution, services
    from armada_web.matches.models import Participant

    outcome = play_match("galaxy", {1: InProcessBot(greedy.Bot()), 2: InProcessBot(prober.Bot())}, seed=3)
    playing = list(BotVersion.objects.playing().of_game("galaxy").select_related("bot").order_by("?")[:4 * ROUNDS])

    def record(round_: int) -> float:
        first = playing[2 * round_]
        second = next(v for v in playing[2 * round_ + 1:] if v.bot.owner_id != first.bot.owner_id)
        match = services.create_match(game="galaxy", first=first, second=second)
        lease = leases.claim(kind=execution.MATCH, job_id=match.pk)
        assert lease is not None
        seats = list(Participant.objects.filter(match=match).select_related("version", "version__bot")
                     .order_by("seat"))
        start = time.perf_counter()
        status = execution.record(lease=lease, match=match, participants=seats, outcome=outcome,
                                  replay_name="bench-replay", log_names={1: "bench-1", 2: "bench-2"})
        seconds = time.perf_counter() - start
        assert status == "finished", status
        return seconds

    return [rolled_back(lambda r=r: record(r)) for r in range(ROUNDS)]


def main() -> int:
    sys.path.append(str(ROOT / "platform"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")
    import django

    django.setup()
    from armada_web.bots.models import BotVersion

    out = {"paths": paths(), "tick": tick_seconds(), "record": record_seconds(),
           "playing": BotVersion.objects.playing().of_game("galaxy").count()}
    out["tick_median"] = statistics.median(out["tick"])  # type: ignore[arg-type]
    out["record_median"] = statistics.median(out["record"])  # type: ignore[arg-type]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
