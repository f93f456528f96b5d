"""`/api/ladder/galaxy/`, `/api/ladder/mothership/` (MD-10 order) and a battle's replay; `/api/challenges/`."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.bots import BotTeamSerializer
from armada_web.api.fields import Body, absolute, typed_json
from armada_web.api.matches import MatchDetailSerializer, gzip_response
from armada_web.api.pagination import KeyedPageNumber, LadderPages
from armada_web.api.schema import answers
from armada_web.bots.models import BotVersion
from armada_web.games import SPECS, Ranking
from armada_web.ladder import challenges, league
from armada_web.ladder.logic import ratings
from armada_web.ladder.models import LeagueEntry, Rating
from armada_web.ladder.queries import battle_of, ladder
from armada_web.matches.models import Match
from armada_web.matches.queries import matches
from armada_web.web.inputs import MAX_ID


class BotRef(serializers.Serializer):
    """A bot and the version of it in this row."""

    id = serializers.IntegerField(source="bot_id")
    name = serializers.CharField(source="bot.name")
    version = serializers.IntegerField(source="number")
    team = serializers.SerializerMethodField()

    @extend_schema_field(BotTeamSerializer)
    def get_team(self, version: BotVersion) -> dict[str, Any]:
        """The team whose bot it is."""
        return {"id": version.bot.team_id, "name": version.bot.team.name}


class RowBase(serializers.Serializer):
    bot = BotRef(source="version")
    owner = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_owner(self, row: Any) -> str | None:
        version: BotVersion = row.version
        return version.bot.owner.username if version.bot.owner else None


class RatedRow(RowBase):
    rank = serializers.IntegerField()
    score = serializers.SerializerMethodField()
    mu = serializers.SerializerMethodField()
    sigma = serializers.SerializerMethodField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    provisional = serializers.SerializerMethodField()
    benched = serializers.SerializerMethodField(help_text="why it plays no ranked games, or empty")

    def get_score(self, row: Rating) -> float:
        return round(row.score, 3)

    def get_mu(self, row: Rating) -> float:
        return round(row.mu, 3)

    def get_sigma(self, row: Rating) -> float:
        return round(row.sigma, 3)

    def get_provisional(self, row: Rating) -> bool:
        return ratings.provisional(row.games)

    def get_benched(self, row: Rating) -> str:
        return row.benched_reason if row.benched else ""


class LeagueRow(RowBase):
    rank = serializers.IntegerField(source="position")
    race = serializers.CharField(source="version.race_name")
    points = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    wins_by_destruction = serializers.IntegerField(source="wins_destruction")
    damage_difference = serializers.IntegerField()


@extend_schema_view(get=extend_schema(responses=answers({200: RatedRow(many=True)}, 400, 404)))
class RatedLadderView(ListAPIView):
    """A rated game's ladder (Galaxy): rank by displayed score mu - 3 sigma; provisional under 10 games."""

    permission_classes = [AllowAny]
    serializer_class = RatedRow
    pagination_class = LadderPages
    game = ""

    def get_queryset(self) -> QuerySet[Rating]:
        return ladder(self.game)

    def paginate_queryset(self, queryset: Any) -> list[Any] | None:
        """The page's rows, each with its rank: its place from the page's start (no window over the ladder)."""
        rows = super().paginate_queryset(queryset)
        page = getattr(self.paginator, "page", None)
        for place, row in enumerate(rows or [], start=page.start_index() if page is not None else 1):
            row.rank = place
        return rows


@extend_schema_view(get=extend_schema(responses=answers({200: LeagueRow(many=True)}, 400, 404)))
class LeagueTableView(ListAPIView):
    """The league table (Mothership Down) in MD-10 order."""

    permission_classes = [AllowAny]
    serializer_class = LeagueRow
    pagination_class = KeyedPageNumber
    game = ""

    def get_queryset(self) -> QuerySet[LeagueEntry]:
        return league.table()


def ladder_view(slug: str) -> Any:
    """The view of game `slug`'s table, by its ranking kind."""
    view = RatedLadderView if SPECS[slug].ranking is Ranking.RATED else LeagueTableView
    return view.as_view(game=slug)


class BattleReplayView(APIView):
    """The replay of the battle of bots a and b (their active versions in the league), computed now."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({(200, "application/gzip"): OpenApiResponse(description="the replay")}, 404))
    def get(self, request: Request, a: int, b: int) -> HttpResponse:
        first, second = battle_of(a, b)
        return gzip_response(league.battle_replay(first.version, second.version), f"{league.GAME}-{a}-{b}.json.gz")


#: A bot in a challenge: its id (a JSON integer) or its name (what `bots.logic.names` allows; digits
#: that name no bot are taken as an id).
BOT_REF = {"anyOf": [{"type": "integer", "minimum": 1, "maximum": MAX_ID},
                     {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,40}$"}]}


class ChallengeRequest(Body):
    bot = typed_json(BOT_REF, refusal="give the bot as a bot's id (a number) or its name",
                     help_text="your bot: its id (a number) or its name")
    opponent = typed_json(BOT_REF, refusal="give the opponent as a bot's id (a number) or its name",
                          help_text="the other bot: its id (a number) or its name (unique per game)")


class ChallengeSerializer(MatchDetailSerializer):
    """The queued match, and where its page is."""

    page = serializers.SerializerMethodField(help_text="the match's page on the site: /matches/{id}/")
    url = serializers.SerializerMethodField(help_text="the match's page as an absolute URL")

    def get_page(self, match: Match) -> str:
        return reverse("match", args=[match.pk])

    def get_url(self, match: Match) -> str:
        return absolute(self.context, self.get_page(match))


class ChallengesView(APIView):
    """Start an unrated Galaxy match of your bot against another active bot (limits per hour and per pair)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ChallengeRequest,
                   responses=answers({201: ChallengeSerializer}, 400, 403, 404, 413, 415))
    def post(self, request: Request) -> Response:
        body = ChallengeRequest(data=request.data)
        body.is_valid(raise_exception=True)
        match = challenges.challenge(user=request.user, bot=body.validated_data["bot"],
                                     opponent=body.validated_data["opponent"])
        match = matches().get(pk=match.pk)
        return Response(ChallengeSerializer(match, context={"request": request}).data, status=status.HTTP_201_CREATED)
