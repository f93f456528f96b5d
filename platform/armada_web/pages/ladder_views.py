"""Table pages: a rated game's ladder, the league, a race's battles and a battle's replay."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from armada_web.bots.access import is_owner
from armada_web.games import Ranking, spec
from armada_web.ladder import league
from armada_web.ladder.challenges import challengers
from armada_web.ladder.logic import ratings
from armada_web.ladder.queries import battle_of, battles, ladder, league_entry_of, ranks_of, search_ladder
from armada_web.pages.pager import pager
from armada_web.pages.viewer_seats import seats_attribute
from armada_web.web.inputs import parse_text
from armada_web.web.paging import keyed_page, page_number

PER_PAGE = 50


def _query(request: HttpRequest) -> str:
    return parse_text(request.GET.get("q", ""), what="the search", max_length=100)


def rated_ladder(request: HttpRequest, game: str) -> HttpResponse:
    """A rated game's ladder: rank by mu - 3 sigma, paginated, searchable with ?q=."""
    number, query = page_number(request.GET.get("page")), _query(request)
    full = ladder(game)
    rows = search_ladder(full, query)
    page = keyed_page(rows.values_list("version_id", flat=True), lambda ids: full.filter(version_id__in=ids),
                      number, PER_PAGE, key=lambda r: r.version_id)
    ranks = (ranks_of(game, [r.version_id for r in page.rows]) if query else
             {r.version_id: page.start + i for i, r in enumerate(page.rows)})
    offers = challengers(user=request.user, opponents=[r.version.bot for r in page.rows])
    table = [{"rank": ranks.get(r.version_id), "rating": r, "provisional": ratings.provisional(r.games),
              "challengers": offers.get(r.version.bot_id, [])} for r in page.rows]
    return render(request, "pages/ladder.html", {"page": page, "pager": pager(request, page), "rows": table,
                                                        "q": query, "game": spec(game), "offers": bool(offers)})


def league_table(request: HttpRequest, game: str) -> HttpResponse:
    """The league table (MD-10), searchable with ?q=."""
    number, query = page_number(request.GET.get("page")), _query(request)
    full = league.table()
    page = keyed_page(search_ladder(full, query).values_list("pk", flat=True), lambda ids: full.filter(pk__in=ids),
                      number, PER_PAGE, key=lambda e: e.pk)
    return render(request, "pages/league.html", {"page": page, "pager": pager(request, page), "q": query,
                                                            "game": spec(game)})


def table_view(game: str) -> Callable[[HttpRequest], HttpResponse]:
    """The page of game `game`'s table, by its ranking kind."""
    view = rated_ladder if spec(game).ranking is Ranking.RATED else league_table
    return functools.wraps(view)(functools.partial(view, game=game))


def race(request: HttpRequest, bot_id: int) -> HttpResponse:
    """A league race's battle against every other race, each with its replay one click away."""
    entry = league_entry_of(bot_id)
    if entry is None:
        raise Http404("that bot is not a race in the league")
    return render(request, "pages/race.html", {"entry": entry, **battles_shown(request, entry),
                                               "page": (entry.position - 1) // PER_PAGE + 1})


def battles_shown(request: HttpRequest, entry: Any) -> dict[str, object]:
    """A league race's battles, the page of them `?battles=N` asks for, and their pager (the race
    page's and its bot's page's)."""
    fought = battles(entry, number=page_number(request.GET.get("battles"), "battles"))
    return {"battles": fought.rows, "battles_pager": pager(request, fought, "battles")}


def race_label(entry: Any) -> str:
    """A race as the viewer names it: its race name and its bot's ("Balanced Brigade (ada-balanced)"),
    since two races may share a name (a trial: "Balanced Brigade vs Balanced Brigade")."""
    race, bot = entry.version.race_name, entry.version.bot.name
    return f"{race} ({bot})" if race and race != bot else bot


def battle(request: HttpRequest, a: int, b: int) -> HttpResponse:
    """The replay of two races' battle, computed on demand, in the viewer."""
    first, second = battle_of(a, b)
    src = reverse("api-battle-replay", args=[a, b])
    names = {seat: race_label(e) for seat, e in ((1, first), (2, second))}
    yours = {seat for seat, e in ((1, first), (2, second)) if is_owner(bot=e.version.bot, user=request.user)}
    return render(request, "pages/battle.html", {"first": first, "second": second, "src": src, "names": names,
                                                 "viewer_seats": seats_attribute(names, yours)})
