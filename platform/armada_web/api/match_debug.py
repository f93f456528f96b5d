"""`/api/matches/{id}/debug/?seat=N`: what a seat's bot drew on the board (its team and staff only)."""

from __future__ import annotations

from typing import Any

from django.utils.decorators import method_decorator
from django.views.decorators.gzip import gzip_page
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from armada.drawing import KINDS, PALETTE
from armada_web.api.dataset_views import DatasetView
from armada_web.api.schema import answers
from armada_web.matches.drawings import seat_drawings
from armada_web.web.inputs import parse_int

_POINT = ("a planet's id (Galaxy), a ship's id (Mothership Down: mothership-S, fighter-S-P) "
          "or [x, y] on the board (protocol.md, \"Drawing\")")


class ShapeSerializer(serializers.Serializer):
    """One shape, as the referee kept it (armada.drawing)."""

    kind = serializers.ChoiceField(choices=list(KINDS))
    at = serializers.JSONField(help_text=_POINT)
    to = serializers.JSONField(required=False, help_text="lines and arrows only: " + _POINT)
    text = serializers.CharField(required=False, help_text="labels only: one line, at most 80 characters")
    color = serializers.ChoiceField(choices=list(PALETTE))


class DrawnTurnSerializer(serializers.Serializer):
    """What the bot drew while answering one turn's requests (Mothership Down's orders: turn 0)."""

    turn = serializers.IntegerField()
    shapes = ShapeSerializer(many=True)
    text = serializers.CharField(allow_blank=True, help_text="the turn's text, at most 16 KiB")


class DrawingsSerializer(serializers.Serializer):
    """A seat's drawings: the turns it drew something in, in order (none: an empty list)."""

    turns = DrawnTurnSerializer(many=True)


class JsonOnly(BaseContentNegotiation):
    """JSON whatever the client accepts (DRF's documented way to ignore the Accept header): a
    browser's strict `Accept: text/html` gets the JSON, not a 406."""

    def select_parser(self, request: Request, parsers: Any) -> Any:
        return parsers[0]

    def select_renderer(self, request: Request, renderers: Any, format_suffix: str | None = None) -> Any:
        return renderers[0], renderers[0].media_type


@method_decorator(gzip_page, name="dispatch")  # up to 2 MiB of JSON a seat
class MatchDebugView(DatasetView):
    """What seat N's bot drew on the board, turn by turn (`debug` in its replies). For its bot's team
    and staff only: 404 for anyone else, exactly as for a missing match. A bulk download
    (THROTTLE_DATASET): up to 2 MiB of JSON read, parsed and written again each time."""

    permission_classes = [AllowAny]
    # JSON only, whatever the Accept header: the browsable page would put the CSRF token and the
    # query's own text beside the drawings in one compressed body (BREACH)
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonOnly

    @extend_schema(
        operation_id="matches_debug",
        parameters=[OpenApiParameter("seat", int, required=True, enum=[1, 2], description="the seat (1 or 2)")],
        responses=answers({200: DrawingsSerializer}, 400, 404, 409, 503))
    def get(self, request: Request, pk: int) -> Response:
        seat = parse_int(request.query_params.get("seat"), what="seat", minimum=1, maximum=2)
        return Response(seat_drawings(user=request.user, match_id=pk, seat=seat))
