"""The API's routes (docs/site.md lists them; the paths are a contract with the CLI)."""

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from armada_web.api.bots import BotViewSet
from armada_web.api.events import (
    EndView,
    EntriesView,
    EntryView,
    EventsView,
    EventView,
    InvitationsView,
    InvitationView,
    InviteView,
    StartView,
)
from armada_web.api.ladder import BattleReplayView, ChallengesView, ladder_view
from armada_web.api.match_debug import MatchDebugView
from armada_web.api.match_requests import MatchRequestsView
from armada_web.api.matches import MatchListView, MatchReplayView, MatchView
from armada_web.api.replays import ReplayListView
from armada_web.api.schema_view import SchemaView
from armada_web.api.seasons import SeasonListView, SeasonView, StandingsView
from armada_web.api.status import StatusView
from armada_web.api.teams import ArchiveView, JoinView, KeyView, LeaveView, RemoveView, RestoreView, TeamsView, TeamView
from armada_web.api.tokens import ApiVersionView, MeView, TokenDetailView, TokensView
from armada_web.api.versions import VersionReplayView, VersionSourceView, VersionView
from armada_web.games import SPECS, Ranking
from armada_web.web import inputs  # noqa: F401  (registers the <id:> and <username:> converters)


class ArmadaRouter(DefaultRouter):
    """The router whose root (`GET /api/`) lists every list path of the API, not only the viewset's."""

    def get_api_root_view(self, api_urls: Any = None) -> Any:
        listed = {"bots": "api-bot-list", "matches": "api-matches", "replays": "api-replays",
                  **{f"ladder/{slug}": f"api-ladder-{slug}" for slug in SPECS},
                  "challenges": "api-challenges", "seasons": "api-seasons", "events": "api-events",
                  "teams": "api-teams", "tokens": "api-tokens", "me": "api-me", "status": "api-status",
                  "version": "api-version", "schema": "api-schema", "docs": "api-docs"}
        return self.APIRootView.as_view(api_root_dict=listed)


router = ArmadaRouter(use_regex_path=False)  # `<id:pk>` paths (the viewset's lookup_value_converter)
router.include_format_suffixes = False  # no `/api/bots.json` twins of the contract's paths
# "api-bot": its routes' names (api-bot-retire, ...) must not shadow the pages' bot-retire, bot-active, bot-move
router.register("bots", BotViewSet, basename="api-bot")

urlpatterns = [
    path("tokens/", TokensView.as_view(), name="api-tokens"),
    path("tokens/<id:pk>/", TokenDetailView.as_view(), name="api-token"),
    path("me/", MeView.as_view(), name="api-me"),
    path("version/", ApiVersionView.as_view(), name="api-version"),
    path("versions/<id:pk>/", VersionView.as_view(), name="api-bot-version"),
    path("versions/<id:pk>/source/", VersionSourceView.as_view(), name="api-bot-version-source"),
    path("versions/<id:pk>/replay/", VersionReplayView.as_view(), name="api-bot-version-replay"),
    path("matches/", MatchListView.as_view(), name="api-matches"),
    path("matches/<id:pk>/", MatchView.as_view(), name="api-match"),
    path("matches/<id:pk>/replay/", MatchReplayView.as_view(), name="api-match-replay"),
    path("matches/<id:pk>/requests/", MatchRequestsView.as_view(), name="api-match-requests"),
    path("matches/<id:pk>/debug/", MatchDebugView.as_view(), name="api-match-debug"),
    path("replays/", ReplayListView.as_view(), name="api-replays"),
    *[path(f"ladder/{slug}/", ladder_view(slug), name=f"api-ladder-{slug}") for slug in SPECS],
    *[path(f"ladder/{game.slug}/<id:a>/<id:b>/replay/", BattleReplayView.as_view(), name="api-battle-replay")
      for game in SPECS.values() if game.ranking is Ranking.LEAGUE],
    path("challenges/", ChallengesView.as_view(), name="api-challenges"),
    path("seasons/", SeasonListView.as_view(), name="api-seasons"),
    path("seasons/<slug:slug>/", SeasonView.as_view(), name="api-season"),
    path("seasons/<slug:slug>/standings/", StandingsView.as_view(), name="api-season-standings"),
    path("events/", EventsView.as_view(), name="api-events"),
    path("events/<slug:slug>/", EventView.as_view(), name="api-event"),
    path("events/<slug:slug>/entries/", EntriesView.as_view(), name="api-event-entries"),
    path("events/<slug:slug>/entries/<id:bot_id>/", EntryView.as_view(), name="api-event-entry"),
    path("events/<slug:slug>/start/", StartView.as_view(), name="api-event-start"),
    path("events/<slug:slug>/end/", EndView.as_view(), name="api-event-end"),
    path("events/<slug:slug>/invitations/", InvitationsView.as_view(), name="api-event-invitations"),
    path("events/<slug:slug>/invitations/<id:team_id>/", InvitationView.as_view(), name="api-event-invitation"),
    path("events/<slug:slug>/invite/", InviteView.as_view(), name="api-event-invite"),
    path("status/", StatusView.as_view(), name="api-status"),
    path("teams/", TeamsView.as_view(), name="api-teams"),
    path("teams/<id:pk>/", TeamView.as_view(), name="api-team"),
    path("teams/<id:pk>/join/", JoinView.as_view(), name="api-team-join"),
    path("teams/<id:pk>/leave/", LeaveView.as_view(), name="api-team-leave"),
    path("teams/<id:pk>/remove/", RemoveView.as_view(), name="api-team-remove"),
    path("teams/<id:pk>/key/", KeyView.as_view(), name="api-team-key"),
    path("teams/<id:pk>/archive/", ArchiveView.as_view(), name="api-team-archive"),
    path("teams/<id:pk>/restore/", RestoreView.as_view(), name="api-team-restore"),
    path("schema/", SchemaView.as_view(), name="api-schema"),  # generated once per process (api/schema_view.py)
    # The split view serves Swagger UI's set-up script as a file: no inline script (CSP).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="pages/swagger_ui.html"),
         name="api-docs"),
    path("", include(router.urls)),
]


@csrf_exempt  # it changes nothing: a DELETE of /api/tokens/<id past 63 bits>/ is a 404, not a CSRF 403
def not_found(request: HttpRequest, rest: str) -> JsonResponse:
    """Any other /api/ path (any method): a JSON 404 like every API error."""
    return JsonResponse({"detail": f"no such API path: /api/{rest}"}, status=404)


urlpatterns.append(re_path(r"^(?P<rest>.*)$", not_found))
