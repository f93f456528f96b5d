"""`/api/replays/`: the site's games as a dataset, the public replays of finished ranked matches
(newest first, filters, cursor pages; matches.dataset), throttled as bulk downloads."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from armada_web.api.dataset_views import DatasetView
from armada_web.api.fields import absolute
from armada_web.api.params import check_known
from armada_web.api.schema import answers
from armada_web.bots.models import Game
from armada_web.matches import dataset, listing


class ReplayRowSerializer(serializers.Serializer):
    """A match's public replay."""

    match = serializers.IntegerField(source="match.pk", help_text="the match's id")
    seed = serializers.IntegerField(source="match.seed")
    players = serializers.ListField(child=serializers.CharField(), help_text="the bots' names, by seat")
    scores = serializers.ListField(child=serializers.FloatField(allow_null=True),
                                   help_text="each seat's shown ladder score (mu - 3 sigma) when the match was made, "
                                   "by seat (null: no rating)")
    result = serializers.JSONField(source="match.outcome", allow_null=True,
                                   help_text="the engine's result: winner, outcome, turns, scores")
    size = serializers.IntegerField(help_text="the replay file's bytes, as `url` serves it")
    sha256 = serializers.CharField(help_text="the replay file's SHA-256 (hex), as `url` serves it")
    url = serializers.SerializerMethodField(help_text="the replay file (gzip JSON, replay format v1)")

    def get_url(self, row: dataset.Row) -> str:
        return absolute(self.context, f"/api/matches/{row.match.pk}/replay/")


class ReplayPageSerializer(serializers.Serializer):
    """A page of the public replays, newest first."""

    next = serializers.CharField(allow_null=True, help_text="the older replays' page (a cursor), or null")
    results = ReplayRowSerializer(many=True)


PARAMETERS = [
    OpenApiParameter("game", str, enum=list(Game.values), description="the game"),
    OpenApiParameter("min_score", {"type": "number", "minimum": -dataset.MAX_SCORE, "maximum": dataset.MAX_SCORE},
                     description="the matches whose two bots both had at least this shown ladder score "
                     "(mu - 3 sigma) when the match was made"),
    OpenApiParameter("since", {"type": "string", "format": "date-time", "maxLength": 64},
                     description="the matches finished at or after this time (ISO 8601: 2026-03-01T12:00:00Z, or a "
                     "date, 2026-03-01; no zone: UTC)"),
    OpenApiParameter("cursor", str, pattern=f"^{dataset.CURSOR_PATTERN}$",
                     description="the page: follow next (o<id>: older than match id)"),
    OpenApiParameter("page_size", {"type": "integer", "minimum": 1, "maximum": listing.MAX_PAGE,
                                   "default": listing.PAGE},
                     description=f"rows per page, 1 to {listing.MAX_PAGE} ({listing.PAGE} when not given)"),
]


class ReplayListView(DatasetView):
    """Public replays of finished ranked matches, newest first, with each file's size and SHA-256:
    the site's games as a dataset (`armada dataset download`). Throttled per user (THROTTLE_DATASET)."""

    permission_classes = [AllowAny]

    @extend_schema(operation_id="replays_list", parameters=PARAMETERS,
                   responses=answers({200: ReplayPageSerializer}, 400, 429, 503))  # 503: a replay unread
    def get(self, request: Request) -> Response:
        params = request.query_params
        check_known(request, ("game", "min_score", "since", "cursor", "page_size"))
        chosen = dataset.filters(game=params.get("game"), min_score=params.get("min_score"),
                                 since=params.get("since"))
        size = listing.page_size(params.get("page_size"))
        found = dataset.page(chosen=chosen, cursor=params.get("cursor"), size=size)
        base: dict[str, Any] = {**chosen.query(), **({"page_size": str(size)} if "page_size" in params else {})}
        older = (request.build_absolute_uri(f"{request.path}?{urlencode({**base, 'cursor': found.older})}")
                 if found.older else None)
        rows = ReplayRowSerializer(found.rows, many=True, context={"request": request}).data
        return Response({"results": rows, "next": older})
