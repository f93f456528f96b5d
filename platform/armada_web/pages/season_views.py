"""Season pages: every season, one season (live standings while open, the finals' progress and
order during them, the final standings and the finals' top matches once finished; a
disqualified account sees the decision and its reason, staff see every one)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from armada_web.bots import queries as bot_queries
from armada_web.games import spec
from armada_web.integrity import queries as integrity_queries
from armada_web.seasons import queries
from armada_web.web.paging import page_number

PER_PAGE = 50


def seasons(request: HttpRequest) -> HttpResponse:
    rows = [{"season": s, "game": spec(s.game), "next": queries.next_time(s)} for s in queries.seasons()]
    return render(request, "seasons/list.html", {"rows": rows})


def season(request: HttpRequest, slug: str) -> HttpResponse:
    found = queries.season(slug)
    # A bad page number is a 400 saying so, as on every other list; past the last: the last page.
    seeded = queries.team_rule_seeding(found)  # once for the page: its standings, count and left-out line
    page = Paginator(queries.standings(found, seeded=seeded), PER_PAGE).get_page(page_number(request.GET.get("page")))
    phase = queries.phase(found)
    ids = [row.bot_id for row in page.object_list if row.bot_id]
    bots = {b.pk: b for b in bot_queries.bots().filter(pk__in=ids)} if ids else {}
    rows = [(row, bots.get(row.bot_id or 0)) for row in page.object_list]  # each bot's team beside it
    context = {"season": found, "game": spec(found.game), "next": queries.next_time(found), "page": page,
               "rows": rows,
               "entries": queries.entry_count(found, seeded=seeded), "progress": queries.progress(found),
               "left_out": queries.left_out_by_team_rules(found, seeded=seeded),
               "top": queries.top_matches(found), "phase": phase, "entering": queries.entering(found, request.user),
               "stages": spec(found.game).rated and not phase.live,
               "decisions": integrity_queries.decisions_seen(season=found, user=request.user)}
    return render(request, "seasons/season.html", context)
