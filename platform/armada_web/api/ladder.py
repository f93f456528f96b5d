"""`/api/ladder/galaxy/`, `/api/ladder/mothership/` (MD-10 order) and a pairing's replay; `/api/challenges/`."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.matches import MatchDetailSerializer, gzip_response, matches
from armada_web.ladder import challenges, league, ratings
from armada_web.ladder.models import LeagueEntry, Rating
from armada_web.ladder.queries import galaxy_ladder


def _bot(version: Any) -> dict[str, Any]:
    return {"id": version.bot_id, "name": version.bot.name, "version": version.number}


def _owner(version: Any) -> str | None:
    return version.bot.owner.username if version.bot.owner else None


class GalaxyRow(serializers.Serializer):
    rank = serializers.IntegerField()
    bot = serializers.DictField()
    owner = serializers.CharField(allow_null=True)
    score = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    provisional = serializers.BooleanField()
    benched = serializers.CharField(help_text="why it plays no ranked games, or empty")


class MothershipRow(serializers.Serializer):
    rank = serializers.IntegerField()
    bot = serializers.DictField()
    race = serializers.CharField()
    owner = serializers.CharField(allow_null=True)
    points = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    wins_by_destruction = serializers.IntegerField()
    damage_difference = serializers.IntegerField()


class GalaxyLadderView(ListAPIView):
    """The Galaxy ladder: rank by displayed score mu - 3 sigma; provisional under 10 games."""

    permission_classes = [AllowAny]
    serializer_class = GalaxyRow

    def get_queryset(self) -> QuerySet[Rating]:
        return galaxy_ladder()

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        start = (self.paginator.page.start_index() if self.paginator and hasattr(self.paginator, "page") else 1)
        rows = [{"rank": start + i, "bot": _bot(r.version), "owner": _owner(r.version), "score": round(r.score, 3),
                 "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "games": r.games, "wins": r.wins,
                 "draws": r.draws, "losses": r.losses, "provisional": ratings.provisional(r.games),
                 "benched": r.benched_reason if r.benched else ""} for i, r in enumerate(page)]
        return self.get_paginated_response(rows)


class MothershipLadderView(ListAPIView):
    """The Mothership Down league table in MD-10 order."""

    permission_classes = [AllowAny]
    serializer_class = MothershipRow

    def get_queryset(self) -> QuerySet[LeagueEntry]:
        return league.table()

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        rows = [{"rank": e.position, "bot": _bot(e.version), "race": e.version.race_name, "owner": _owner(e.version),
                 "points": e.points, "wins": e.wins, "draws": e.draws, "losses": e.losses,
                 "wins_by_destruction": e.wins_destruction, "damage_difference": e.damage_difference}
                for e in page]
        return self.get_paginated_response(rows)


class PairingReplayView(APIView):
    """The replay of the battle of bots a and b (their active versions in the league), computed now."""

    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "application/gzip"): OpenApiResponse(description="the replay")})
    def get(self, request: Request, a: int, b: int) -> HttpResponse:
        entries = {e.version.bot_id: e.version for e in league.table().filter(version__bot_id__in=[a, b])}
        if a == b or a not in entries or b not in entries:
            raise Http404("both bots must be races in the league (and differ)")
        return gzip_response(league.pairing_replay(entries[a], entries[b]), f"mothership-{a}-{b}.json.gz")


class ChallengesView(APIView):
    """Start an unrated Galaxy match of your bot against another active bot (limits per hour and per pair)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=inline_serializer("Challenge", {"bot": serializers.IntegerField(),
                                                           "opponent": serializers.IntegerField()}),
                   responses={201: MatchDetailSerializer})
    def post(self, request: Request) -> Response:
        body = request.data if isinstance(request.data, dict) else {}
        match = challenges.challenge(request.user, body.get("bot"), body.get("opponent"))
        match = matches().get(pk=match.pk)
        return Response(MatchDetailSerializer(match, context={"request": request}).data, status=status.HTTP_201_CREATED)
