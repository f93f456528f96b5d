"""Table pages: a rated game's ladder, the league, a race's battles and a pairing's replay."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from armada_web.games import Ranking, spec
from armada_web.ladder import league, ratings
from armada_web.ladder.challenges import challengers
from armada_web.ladder.queries import battles, ladder, league_entry_of, pairing_of, search_ladder

PER_PAGE = 50


def _page(request: HttpRequest, queryset: object) -> tuple[object, str]:
    query = request.GET.get("q", "").strip()[:100]
    paginator = Paginator(search_ladder(queryset, query), PER_PAGE)  # type: ignore[arg-type]
    return paginator.get_page(request.GET.get("page")), query


def rated_ladder(request: HttpRequest, game: str) -> HttpResponse:
    """A rated game's ladder: rank by mu - 3 sigma, paginated, searchable with ?q=."""
    full = ladder(game)
    ranks = {pk: i for i, pk in enumerate(full.values_list("pk", flat=True), start=1)}
    page, query = _page(request, full)
    shown = list(page.object_list)  # type: ignore[attr-defined]
    offers = challengers(user=request.user, opponents=[r.version.bot for r in shown])
    rows = [{"rank": ranks[r.pk], "rating": r, "provisional": ratings.provisional(r.games),
             "challengers": offers.get(r.version.bot_id, [])} for r in shown]
    return render(request, "pages/ladder_galaxy.html", {"page": page, "rows": rows, "q": query, "game": spec(game),
                                                        "offers": bool(offers)})


def league_table(request: HttpRequest, game: str) -> HttpResponse:
    """The league table (MD-10), searchable with ?q=."""
    page, query = _page(request, league.table())
    return render(request, "pages/ladder_mothership.html", {"page": page, "q": query, "game": spec(game)})


def table_view(game: str) -> Callable[[HttpRequest], HttpResponse]:
    """The page of game `game`'s table, by its ranking kind."""
    view = rated_ladder if spec(game).ranking is Ranking.RATED else league_table
    return functools.wraps(view)(functools.partial(view, game=game))


def race(request: HttpRequest, bot_id: int) -> HttpResponse:
    """A league race's battle against every other race, each with its replay one click away."""
    entry = league_entry_of(bot_id)
    if entry is None:
        raise Http404("that bot is not a race in the league")
    return render(request, "pages/race.html", {"entry": entry, "pairings": battles(entry),
                                               "page": (entry.position - 1) // PER_PAGE + 1})


def pairing(request: HttpRequest, a: int, b: int) -> HttpResponse:
    """The replay of two races' battle, computed on demand, in the viewer."""
    first, second = pairing_of(a, b)
    src = reverse("api-pairing-replay", args=[a, b])
    return render(request, "pages/pairing.html", {"first": first, "second": second, "src": src})
