"""Each deep list is served by its index (PostgreSQL's EXPLAIN): the ladder, the league, the bot list,
the match list and its filters, a bot's matches, its head-to-head and rating chart, matchmaking's
reads, the estimates' recent rating changes and the home page's latest matches. On PostgreSQL only
(CI uses it; elsewhere it skips, under CI it fails). The tables of a test site are small, and on a
small table the planner rightly reads the whole table (or sorts a few rows); with sequential scans,
bitmap scans and sorts turned off it must still find an index that serves the query's filter and
order without sorting, which shows the index fits the query (a sort it cannot avoid still appears,
and fails the check).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from tests.support.scale_data import seed
from tests.support.services import missing

pytestmark = pytest.mark.django_db


def plan(queryset: Any) -> dict[str, Any]:
    """EXPLAIN (FORMAT JSON) of a queryset with sequential and bitmap scans and sorts discouraged."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
            cursor.execute(f"SET LOCAL {setting} = off")
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        found = cursor.fetchone()[0]
    return (json.loads(found) if isinstance(found, str) else found)[0]["Plan"]


def nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node, *(n for child in node.get("Plans", []) for n in nodes(child))]


def uses(queryset: Any, index: str) -> list[dict[str, Any]]:
    """The plan's nodes; fails unless `index` serves it and no big table is read whole or sorted."""
    found = nodes(plan(queryset))
    assert any(n.get("Index Name") == index for n in found), (index, [(n["Node Type"], n.get("Index Name"))
                                                                     for n in found])
    for node in found:
        assert node["Node Type"] != "Seq Scan", node
    return found


def unsorted(found: list[dict[str, Any]]) -> None:
    """The order comes from the index: no sort of the rows the list reads."""
    assert not any(n["Node Type"] in ("Sort", "Incremental Sort") for n in found), [n["Node Type"] for n in found]


def test_every_deep_list_is_served_by_its_index():
    if connection.vendor != "postgresql":
        missing("EXPLAIN of the lists needs PostgreSQL (set DATABASE_URL; CI does)")
    from armada_web.bots import queries as bot_queries
    from armada_web.ladder import league
    from armada_web.ladder.matchmaking import RatingPool
    from armada_web.ladder.models import Rating, RatingChange
    from armada_web.ladder.queries import ladder, recent_changes
    from armada_web.matches import listing
    from armada_web.matches.models import HeadToHead
    from armada_web.matches.queries import head_to_head, matches

    site = seed("large")
    bot = site.typical
    rival = HeadToHead.objects.filter(bot=bot).order_by("-games").first().opponent
    unsorted(uses(ladder("galaxy").values_list("version_id", flat=True)[950:1000], "rating_ladder"))
    unsorted(uses(league.table().values_list("pk", flat=True)[100:150], "league_entry_position"))
    unsorted(uses(bot_queries.bots().values_list("pk", flat=True)[100:150], "bot_list_order"))  # /api/bots/
    for filters, index in (({}, "matches_match_pkey"), ({"game": "mothership"}, "match_game_newest"),
                           ({"kind": "challenge"}, "match_kind_newest"), ({"status": "queued"}, "match_status_newest"),
                           ({"bot": bot.pk}, "seat_bot_newest"),
                           ({"bot": bot.pk, "opponent": rival.pk}, "seat_pairing_newest"),
                           ({"bot": bot.pk, "version": "1"}, "seat_version_newest")):
        chosen = listing.filters(**{k: str(v) for k, v in filters.items()})
        ids, column = listing._ids(chosen)
        unsorted(uses(ids.filter(**{f"{column}__lt": site.match.pk}).order_by(f"-{column}")[:51], index))
    unsorted(uses(matches().filter(status="finished").order_by("-finished", "-id")[:10], "match_status_latest"))
    unsorted(uses(head_to_head(bot.pk).values_list("pk", flat=True)[:20], "head_to_head_most_played"))
    version = bot.versions.order_by("number").first()
    uses(RatingChange.objects.filter(version_id=version.pk, games__in=[1, 50, 100]), "rating_change_nth_game")
    # The estimates on every bot page and /status/: the last minutes' changes, not the season's history.
    uses(recent_changes("galaxy", timezone.now()).filter(games__lte=10), "rating_change_at")
    pool = RatingPool("galaxy")
    unsorted(uses(pool.rows.filter(last_played__isnull=False).order_by("due", "version_id")[:16],
                  "rating_seed_order"))  # matchmaking's seeds, as RatingPool.longest_waiting reads them
    seed_row = Rating.objects.filter(playing=True).first()
    unsorted(uses(pool.rows.filter(mu__gte=seed_row.mu).order_by("mu", "version_id")[:12], "rating_near_mu"))
    # the estimates' counts (/status/, bot pages), of a pool of any size
    uses(pool.rows.filter(games__lt=10), "rating_settling")
    uses(pool.rows.filter(last_played__isnull=True, version_id__lt=seed_row.version_id), "rating_never_played")
