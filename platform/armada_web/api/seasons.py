"""`/api/seasons/`, `/api/seasons/{slug}/` (with `entries`, who may enter, the disqualifications the
viewer may read and, in its finals, `finals`) and
`/api/seasons/{slug}/standings/` (paginated; live while open, final once finished)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.schema import answers
from armada_web.integrity import queries as integrity_queries
from armada_web.seasons import queries
from armada_web.seasons.models import EntryRule, Season, SeasonState


class SeasonSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    game = serializers.CharField()
    state = serializers.CharField()
    opens = serializers.DateTimeField()
    closes = serializers.DateTimeField()
    ends = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True, help_text="when it closed (empty before)")
    finished_at = serializers.DateTimeField(allow_null=True, help_text="when it finished (empty before)")
    entry_rule = serializers.ChoiceField(choices=EntryRule.choices,
                                         help_text="whose bots enter at the close: everyone, not-staff-or-demo "
                                                   "(no staff or demo accounts), invited (invited accounts only)")
    team_max_members = serializers.IntegerField(allow_null=True, help_text="an entered team has at most this many "
                                                "members (null: the site's limit)")
    one_team_per_person = serializers.BooleanField(help_text="a person is in at most one entered team")


class FinalsSerializer(serializers.Serializer):
    stage = serializers.IntegerField(help_text="the stage being played (1-based)")
    stages = serializers.IntegerField()
    round = serializers.IntegerField(help_text="the round of the stage being played (1-based)")
    rounds = serializers.IntegerField(help_text="rounds per stage")
    matches_done = serializers.IntegerField()
    matches_total = serializers.IntegerField()
    playing = serializers.IntegerField(help_text="entries in the current stage")
    withdrawn = serializers.IntegerField(help_text="entries withdrawn (disqualified) after the close: their games, "
                                                   "played or not, left matches_done and matches_total")
    workers = serializers.IntegerField(help_text="match workers the finals take now")
    estimate = serializers.DateTimeField(allow_null=True, help_text="when the finals should be done at this pace")


class DecisionSerializer(serializers.Serializer):
    target = serializers.CharField(help_text="version, account or team")
    subject = serializers.SerializerMethodField(help_text="what left the season: `bot vN`, a username or a team")
    username = serializers.CharField(help_text="the account (a version's owner; empty for a team)")
    reason = serializers.CharField()
    entries = serializers.IntegerField(help_text="entries that left the standings")
    at = serializers.DateTimeField()

    def get_subject(self, decision: Any) -> str:
        return str(decision.version_label or decision.team_name or decision.username)


class SeasonDetailSerializer(SeasonSerializer):
    entries = serializers.SerializerMethodField(help_text="frozen entries (while open: the bots that would enter)")
    finals = serializers.SerializerMethodField(help_text="during the finals: where they are (absent otherwise)")
    invited = serializers.SerializerMethodField(help_text="accounts invited (entry rule invited; else null)")
    may_enter = serializers.SerializerMethodField(help_text="whether the signed-in account's bots may enter: its "
                                                            "entry rule admits the account and the season has not "
                                                            "closed (null when nobody is signed in)")
    disqualifications = serializers.SerializerMethodField(
        help_text="the season's disqualifications the signed-in account may read: its own and its teams' "
                  "(staff: every one); empty for anyone else")

    def get_entries(self, season: Season) -> int:
        return queries.entry_count(season)

    def _entering(self, season: Season) -> queries.Entering:
        request = self.context.get("request")
        return queries.entering(season, getattr(request, "user", None))

    def get_invited(self, season: Season) -> int | None:
        return self._entering(season).invited

    def get_may_enter(self, season: Season) -> bool | None:
        return self._entering(season).viewer

    @extend_schema_field(DecisionSerializer(many=True))
    def get_disqualifications(self, season: Season) -> list[dict[str, Any]]:
        request = self.context.get("request")
        seen = integrity_queries.decisions_seen(season=season, user=getattr(request, "user", None))
        return [dict(row) for row in DecisionSerializer(seen, many=True).data]

    @extend_schema_field(FinalsSerializer(allow_null=True))
    def get_finals(self, season: Season) -> dict[str, Any] | None:
        progress = queries.progress(season)
        return dict(FinalsSerializer(progress).data) if progress is not None else None

    def to_representation(self, season: Season) -> dict[str, Any]:
        data = super().to_representation(season)
        if season.state != SeasonState.FINALS:
            data.pop("finals", None)
        return data


class StandingTeamRef(serializers.Serializer):
    id = serializers.IntegerField(source="team_id")
    name = serializers.CharField(source="team_name")


def row_team(row: queries.Row) -> dict[str, Any] | None:
    """The row's team as the API gives it (null for a row from before teams)."""
    return dict(StandingTeamRef(row).data) if row.team_id is not None else None


class StandingBotRef(serializers.Serializer):
    id = serializers.IntegerField(source="bot_id")
    name = serializers.CharField(source="bot_name")
    team = serializers.SerializerMethodField(help_text="its team, as the row's `team`")

    @extend_schema_field(StandingTeamRef(allow_null=True))
    def get_team(self, row: queries.Row) -> dict[str, Any] | None:
        return row_team(row)


class StandingRow(serializers.Serializer):
    place = serializers.IntegerField()
    bot = StandingBotRef(source="*")
    owner = serializers.CharField(help_text="the owner's username, or a placeholder once their account is gone")
    team = serializers.SerializerMethodField(help_text="the bot's team (as entered once the season closed); "
                                                       "null for a row from before teams")
    members = serializers.ListField(child=serializers.CharField(), help_text="the team's members' usernames "
                                    "(now while open; frozen at the close after)")
    version = serializers.IntegerField(source="version_id", help_text="the version's id")
    version_number = serializers.IntegerField(allow_null=True, help_text="the version's number on its bot (v1, v2)")
    score = serializers.FloatField(help_text="Galaxy: rating mu - 3 sigma; Mothership Down: league points")
    games = serializers.IntegerField()
    stage = serializers.IntegerField(help_text="the last finals stage it played in")

    @extend_schema_field(StandingTeamRef(allow_null=True))
    def get_team(self, row: queries.Row) -> dict[str, Any] | None:
        return row_team(row)


@extend_schema_view(get=extend_schema(responses=answers({200: SeasonSerializer(many=True)}, 400, 404)))
class SeasonListView(ListAPIView):
    """Every season, the latest to open first."""

    permission_classes = [AllowAny]
    serializer_class = SeasonSerializer

    def get_queryset(self) -> Any:
        return queries.seasons()


class SeasonView(APIView):
    """One season: its times, state, entries and, during the finals, their progress."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({200: SeasonDetailSerializer}, 404))
    def get(self, request: Request, slug: str) -> Response:
        return Response(SeasonDetailSerializer(queries.season(slug), context={"request": request}).data)


@extend_schema_view(get=extend_schema(responses=answers({200: StandingRow(many=True)}, 400, 404)))
class StandingsView(ListAPIView):
    """The season's standings: the ladder or league while open, the finals' order during them, the
    stored final standings once finished (they never change)."""

    permission_classes = [AllowAny]
    serializer_class = StandingRow

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):  # the schema's generator: no season to read
            return Season.objects.none()
        return queries.standings(queries.season(self.kwargs["slug"]))
