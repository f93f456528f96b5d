"""Page views: thin, data comes from queries (home, users, SDK, the docs)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.urls import reverse

from armada.games.base import SEATS
from armada_web.bots import queries as bot_queries
from armada_web.games import SPECS
from armada_web.ladder import league
from armada_web.ladder.queries import ladder
from armada_web.matches import listing
from armada_web.matches import queries as match_queries
from armada_web.pages import docs
from armada_web.pages.pager import pager
from armada_web.pages.quickstart import Step, quick_start
from armada_web.seasons import queries as season_queries
from armada_web.teams.queries import teams_of
from armada_web.web.paging import keyed_page, page_number
from armada_web.web.roles import is_staff


def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico: the site's icon, for pages that name none (DRF's browsable API, the admin),
    which browsers ask for there (a 404 otherwise, logged in the console)."""
    return redirect(static("pages/favicon.svg"), permanent=True)


def home(request: HttpRequest) -> HttpResponse:
    """The landing page: what Armada is, the current season and its countdown, the games, the top
    of each table, the latest matches."""
    tops = [{"game": game, "rows": list(ladder(game.slug)[:5] if game.rated else league.table()[:5])}
            for game in SPECS.values()]
    season = season_queries.current_season()
    context = {"games": list(SPECS.values()), "seats": len(SEATS), "tops": tops,
               "latest": match_queries.latest_finished(10, viewer=request.user), "quick_start": _quick_start(request),
               "season": season,
               "no_season_yet": season is None and is_staff(request.user) and not season_queries.any_season(),
               "season_game": SPECS.get(season.game) if season else None,
               "next": season_queries.next_time(season) if season else None}
    return render(request, "pages/home.html", context)


USER_BOTS = 50
USER_MATCHES = 15


def user_page(request: HttpRequest, username: str) -> HttpResponse:
    """A user's teams, the bots of their teams (paged) and the latest matches of those that play (kept
    bounded: listing.latest_of)."""
    number = page_number(request.GET.get("page"))
    person = get_object_or_404(get_user_model(), username=username, is_active=True)
    bots = keyed_page(bot_queries.bots_of(person).values_list("pk", flat=True),
                      lambda ids: bot_queries.bots().filter(pk__in=ids), number, USER_BOTS, key=lambda b: b.pk)
    playing_first = sorted(bots.rows, key=lambda b: b.retired is not None)
    recent = listing.latest_of(bot_ids=[b.pk for b in playing_first], limit=USER_MATCHES, viewer=request.user)
    return render(request, "pages/user.html", {"person": person, "bots": bots.rows, "pager": pager(request, bots),
                                               "recent": recent, "teams": list(teams_of(user=person))})


def sdk_wheel_path() -> Path | None:
    """The newest SDK wheel `manage.py build_sdk_wheel` wrote, None before it ran."""
    wheels = sorted(Path(settings.ARMADA_SDK_DIR).glob("armada-*.whl"))
    return wheels[-1] if wheels else None


def _wheel_url(request: HttpRequest) -> str | None:
    wheel = sdk_wheel_path()
    return request.build_absolute_uri(reverse("sdk-wheel", args=[wheel.name])) if wheel else None


def _quick_start(request: HttpRequest) -> list[Step]:
    return quick_start(site_url=request.build_absolute_uri("/").rstrip("/"), wheel_url=_wheel_url(request))


def sdk_page(request: HttpRequest) -> HttpResponse:
    """Download the SDK and the quick start."""
    wheel = sdk_wheel_path()
    return render(request, "pages/sdk.html", {"wheel": wheel, "wheel_url": _wheel_url(request),
                                              "quick_start": _quick_start(request), "topics": docs.topics()})


def sdk_wheel(request: HttpRequest, filename: str) -> FileResponse:
    wheel = sdk_wheel_path()
    if wheel is None or wheel.name != filename:
        raise Http404("no such SDK file")
    return FileResponse(wheel.open("rb"), as_attachment=True, filename=wheel.name,
                        content_type="application/zip")


def docs_index(request: HttpRequest) -> HttpResponse:
    """Every document a bot author reads (the SDK's, then the site's own), and the quick start."""
    return render(request, "pages/docs_index.html", {"topics": docs.topics(), "site_topics": docs.site_topics(),
                                                     "quick_start": _quick_start(request)})


def doc_page(request: HttpRequest, slug: str) -> HttpResponse:
    """One document (the SDK's shipped file, or the site's own), with the list of the others and its contents."""
    found = docs.page(slug)
    if found is None:
        raise Http404("no such document")
    shown = docs.for_site(found, site_url=request.build_absolute_uri("/"))
    return render(request, "pages/doc.html", {"doc": shown, "topics": docs.topics() + docs.site_topics()})


def old_rules_page(request: HttpRequest, slug: str) -> HttpResponse:
    """/rules/SLUG/ (the site's first docs pages) moved to /docs/SLUG/."""
    if docs.page(slug) is None:
        raise Http404("no such document")
    return redirect("doc", slug=slug, permanent=True)
