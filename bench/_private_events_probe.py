"""How much private events' matches cost the lists that hide them (bench/scale.py's large site).

Inside one transaction that is rolled back, times the requests of `bench/_scale_probe.py`
anonymously and as a signed-in member of some events, first as seeded, then with MATCHES of its finished
matches (every 25th) made the matches of EVENTS private events.
Prints each request's median before and after and their ratio.

    DATABASE_URL=<the large site> .venv/bin/python bench/_private_events_probe.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
EVENTS = 200
ENTRIES = 8
MATCHES = 40_000
ROUNDS = 7


class Rollback(Exception):
    pass


def timed(client: Any, paths: dict[str, str]) -> dict[str, float]:
    """Median ms of each path over ROUNDS (after one warm-up); inf when a query ran past the
    statement timeout (PGOPTIONS="-c statement_timeout=MS")."""
    from django.db import transaction
    from django.db.utils import OperationalError

    out = {}
    for name, path in paths.items():
        times = []
        try:
            for _ in range(ROUNDS + 1):
                with transaction.atomic():  # a savepoint: a timed-out query leaves the rest usable
                    start = time.perf_counter()
                    assert client.get(path).status_code == 200, path
                    times.append((time.perf_counter() - start) * 1000)
        except OperationalError:
            times = [float("inf")] * 2
        out[name] = statistics.median(times[1:])
    return out


def add_private_events() -> Any:
    """EVENTS private events of ENTRIES entries each, holding MATCHES of the site's finished matches."""
    from django.contrib.auth import get_user_model
    from django.db.models import F

    from armada_web.bots.models import Bot
    from armada_web.events.models import Event, EventEntry, EventGame
    from armada_web.matches.models import Match, MatchKind, MatchStatus

    users = list(get_user_model().objects.order_by("pk")[:EVENTS])
    bots = list(Bot.objects.filter(game="galaxy").order_by("owner_id", "pk").distinct("owner_id")[:EVENTS * ENTRIES])
    events = Event.objects.bulk_create(
        Event(slug=f"private-{i}", name=f"Private {i}", game="galaxy", owner=users[i], format="round_robin",
              games_per_pair=2, public=False, max_entrants=ENTRIES, invite=f"code{i}", state="running")
        for i in range(EVENTS))
    entries = EventEntry.objects.bulk_create(
        EventEntry(event=events[i], bot=bot, bot_ref=bot.pk, bot_name=bot.name, owner_id=bot.owner_id)
        for i in range(EVENTS) for bot in (bots[(i * ENTRIES + k) % len(bots)] for k in range(ENTRIES)))
    # every 25th finished ranked match becomes a private event's: spread through the history, as
    # events come and go over a season (their seats, ratings aside, are as the ranked match left them)
    ranked = Match.objects.filter(kind=MatchKind.RANKED, status=MatchStatus.FINISHED)
    made = list(ranked.annotate(n=F("id") % 25).filter(n=0).order_by("-pk")[:MATCHES])
    Match.objects.filter(pk__in=[m.pk for m in made]).update(kind=MatchKind.EVENT)
    EventGame.objects.bulk_create(
        (EventGame(event=events[n % EVENTS], number=n, first=entries[(n % EVENTS) * ENTRIES],
                   second=entries[(n % EVENTS) * ENTRIES + 1], match=m, counted=True)
         for n, m in enumerate(made)), batch_size=5000)
    return users[0]


def main() -> int:
    sys.path.append(str(ROOT / "platform"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")
    import django

    django.setup()
    import _scale_probe
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.test import Client

    paths = _scale_probe.paths()
    anon, member = Client(), Client()
    try:
        with transaction.atomic():
            user = get_user_model().objects.order_by("pk").first()
            member.force_login(user)
            before = {"anon": timed(anon, paths), "member": timed(member, paths)}
            add_private_events()
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE matches_match; ANALYZE matches_participant; ANALYZE events_eventgame")
            after = {"anon": timed(anon, paths), "member": timed(member, paths)}
            raise Rollback
    except Rollback:
        pass
    print(f"{EVENTS} private events, {MATCHES} of their matches added (rolled back); median ms of {ROUNDS}")
    for who in ("anon", "member"):
        for name in paths:
            b, a = before[who][name], after[who][name]
            print(f"{who:6} {name:17} {b:8.1f} -> {a:8.1f}  x{a / b:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
