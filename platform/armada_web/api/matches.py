"""`/api/matches/` (list, newest first), `/api/matches/{id}/` and its `replay/`."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.fields import IdFilter, absolute
from armada_web.api.schema import answers
from armada_web.bots.access import can_see_private
from armada_web.bots.models import Game
from armada_web.matches import storage
from armada_web.matches.models import Match, MatchKind, MatchStatus, Participant
from armada_web.matches.queries import matches, seat_log


def bot_ref(p: Participant) -> dict[str, Any] | None:
    if p.version is None:
        return None
    return {"id": p.version.bot_id, "name": p.version.bot.name, "version": p.version.number}


class PlayerSerializer(serializers.Serializer):
    bot = serializers.SerializerMethodField()
    name = serializers.CharField()
    seat = serializers.IntegerField()
    result = serializers.CharField()
    status = serializers.CharField()

    def get_bot(self, p: Participant) -> dict[str, Any] | None:
        return bot_ref(p)


class PlayerDetailSerializer(PlayerSerializer):
    detail = serializers.CharField()
    score = serializers.FloatField(allow_null=True)
    rating_before = serializers.SerializerMethodField()
    rating_after = serializers.SerializerMethodField()

    def get_rating_before(self, p: Participant) -> dict[str, float] | None:
        return None if p.mu_before is None else {"mu": p.mu_before, "sigma": p.sigma_before or 0.0}

    def get_rating_after(self, p: Participant) -> dict[str, float] | None:
        return None if p.mu_after is None else {"mu": p.mu_after, "sigma": p.sigma_after or 0.0}


class PlayerWithLogSerializer(PlayerDetailSerializer):
    """A seat with its bot's log for the bot's owner and staff (no `log` key for anyone else)."""

    log = serializers.CharField(required=False, help_text="the bot's stderr in this match: owner and staff only")

    def to_representation(self, p: Participant) -> dict[str, Any]:
        data = super().to_representation(p)
        data.pop("log", None)
        request = self.context.get("request")
        if p.version is not None and can_see_private(user=getattr(request, "user", None), bot=p.version.bot):
            data["log"] = seat_log(p)
        return data


class MatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField()
    created = serializers.DateTimeField()
    finished = serializers.DateTimeField(allow_null=True)
    players = PlayerSerializer(many=True, source="participants.all")


class MatchDetailSerializer(MatchSerializer):
    players = PlayerWithLogSerializer(many=True, source="participants.all")  # type: ignore[assignment]
    seed = serializers.IntegerField()
    attempts = serializers.IntegerField()
    started = serializers.DateTimeField(allow_null=True)
    turns = serializers.IntegerField(allow_null=True)
    result = serializers.JSONField(source="outcome", allow_null=True)
    reason = serializers.CharField()
    engine_version = serializers.CharField()
    replay = serializers.SerializerMethodField()

    def get_replay(self, match: Match) -> str | None:
        if match.status != MatchStatus.FINISHED:
            return None
        return absolute(self.context, f"/api/matches/{match.pk}/replay/")


class MatchFilter(django_filters.FilterSet):
    bot = IdFilter(method="filter_bot", help_text="a bot id: its matches")
    game = django_filters.ChoiceFilter(choices=Game.choices)
    kind = django_filters.ChoiceFilter(choices=MatchKind.choices)
    status = django_filters.ChoiceFilter(choices=MatchStatus.choices)

    class Meta:
        model = Match
        fields = ["bot", "game", "kind", "status"]

    def filter_bot(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(participants__version__bot_id=value).distinct()


@extend_schema_view(get=extend_schema(responses=answers({200: MatchSerializer(many=True)}, 400, 404)))
class MatchListView(ListAPIView):
    """Matches, newest first; filter by bot, game, kind, status."""

    permission_classes = [AllowAny]
    serializer_class = MatchSerializer
    filterset_class = MatchFilter
    queryset = matches()


class MatchView(APIView):
    """One match: result, players with their ratings before and after; each player's log for its owner and staff."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({200: MatchDetailSerializer}, 404))
    def get(self, request: Request, pk: int) -> Response:
        match = matches().filter(pk=pk).first()
        if match is None:
            raise Http404("no such match")
        return Response(MatchDetailSerializer(match, context={"request": request}).data)


class MatchReplayView(APIView):
    """The replay (gzip JSON, replay format v1); 404 until the match is finished."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({(200, "application/gzip"): OpenApiResponse(description="the replay")}, 404))
    def get(self, request: Request, pk: int) -> HttpResponse:
        match = Match.objects.filter(pk=pk).first()
        finished = match is not None and match.status == MatchStatus.FINISHED
        data = storage.read(match.replay.name or "") if match is not None and finished else None
        if data is None:
            raise Http404("no replay: no such match, or it has not finished")
        return gzip_response(data, f"match-{pk}.json.gz")


def gzip_response(data: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(data, content_type="application/gzip")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response
