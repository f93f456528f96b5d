"""`/api/matches/{id}/requests/?seat=N`: the requests a seat received, as JSON lines (its team and staff only)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request

from armada_web.api.dataset_views import DatasetView
from armada_web.api.schema import answers
from armada_web.matches.rerun import seat_requests
from armada_web.web.inputs import parse_int

#: The media type of the answer: one JSON object a line.
JSON_LINES = "application/jsonl"


class MatchRequestsView(DatasetView):
    """Every request seat N's bot received in the match, one JSON line each as the referee wrote them
    (init, the game's requests, end), for `armada replay --rerun`. The seat's bot's team and staff
    only: 404 for anyone else, exactly as for a missing match; 409 while the match has no replay.
    Throttled as a bulk download too (THROTTLE_DATASET), and kept once rebuilt (`matches.rerun`):
    rebuilding replays the whole game in the web process (about a second of CPU for a 200-turn
    Galaxy match), and the per-user limit alone let one account with a seat in any match (a
    challenge makes one) keep the web workers busy."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="matches_requests",
        parameters=[OpenApiParameter("seat", int, required=True, enum=[1, 2], description="the seat (1 or 2)")],
        responses=answers({(200, JSON_LINES): OpenApiResponse(description="the seat's requests, one JSON line each")},
                          400, 404, 409, 503))
    def get(self, request: Request, pk: int) -> HttpResponse:
        seat = parse_int(request.query_params.get("seat"), what="seat", minimum=1, maximum=2)
        text = seat_requests(user=request.user, match_id=pk, seat=seat)
        response = HttpResponse(text.encode("utf-8"), content_type=JSON_LINES)
        response["Content-Disposition"] = f'attachment; filename="match-{pk}-seat{seat}-requests.jsonl"'
        response["Cache-Control"] = "private, no-store"  # its seat's bot's team's, as the drawings' replay
        return response
