"""Page views: thin, data comes from queries (home, users, SDK, rules and protocol)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from armada.games.base import SEATS
from armada_web.bots import queries as bot_queries
from armada_web.games import SPECS
from armada_web.ladder import league
from armada_web.ladder.queries import ladder
from armada_web.matches import queries as match_queries
from armada_web.pages import docs
from armada_web.seasons import queries as season_queries


def home(request: HttpRequest) -> HttpResponse:
    """The landing page: what Armada is, the current season and its countdown, the games, the top
    of each table, the latest matches."""
    tops = [{"game": game, "rows": list(ladder(game.slug)[:5] if game.rated else league.table()[:5])}
            for game in SPECS.values()]
    season = season_queries.current_season()
    context = {"games": list(SPECS.values()), "seats": len(SEATS), "tops": tops,
               "latest": match_queries.latest_finished(10), "season": season,
               "season_game": SPECS.get(season.game) if season else None,
               "next": season_queries.next_time(season) if season else None}
    return render(request, "pages/home.html", context)


def user_page(request: HttpRequest, username: str) -> HttpResponse:
    """A user's bots and their latest matches."""
    person = get_object_or_404(get_user_model(), username=username, is_active=True)
    bots = list(bot_queries.bots_of(person))
    recent = list(match_queries.matches().filter(participants__version__bot__owner=person).distinct()[:15])
    return render(request, "pages/user.html", {"person": person, "bots": bots, "recent": recent})


def sdk_wheel_path() -> Path | None:
    """The newest SDK wheel `manage.py build_sdk_wheel` wrote, None before it ran."""
    wheels = sorted(Path(settings.ARMADA_SDK_DIR).glob("armada-*.whl"))
    return wheels[-1] if wheels else None


def sdk_page(request: HttpRequest) -> HttpResponse:
    """Download the SDK and the quick start."""
    wheel = sdk_wheel_path()
    url = request.build_absolute_uri(reverse("sdk-wheel", args=[wheel.name])) if wheel else None
    return render(request, "pages/sdk.html", {"wheel": wheel, "wheel_url": url,
                                              "site_url": request.build_absolute_uri("/").rstrip("/")})


def sdk_wheel(request: HttpRequest, filename: str) -> FileResponse:
    wheel = sdk_wheel_path()
    if wheel is None or wheel.name != filename:
        raise Http404("no such SDK file")
    return FileResponse(wheel.open("rb"), as_attachment=True, filename=wheel.name,
                        content_type="application/zip")


def doc_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Rules and protocol pages rendered from docs/."""
    found = docs.page(slug)
    if found is None:
        raise Http404("no such page")
    title, html = found
    return render(request, "pages/doc.html", {"title": title, "html": html, "slug": slug})
