"""`/api/teams/`: create and list your teams, show and rename one, join with its key, leave, remove a member,
renew the key, archive and restore (issue 26's contract). Thin: the rules are `teams.services`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.fields import Body, TextField
from armada_web.api.schema import answers
from armada_web.teams import queries, services
from armada_web.teams.access import shows_join_key
from armada_web.teams.logic.names import FAR_TOO_LONG, NAME_MAX, NAME_READ_MAX
from armada_web.teams.models import Team


class MemberSerializer(serializers.Serializer):
    username = serializers.CharField()


class TeamBotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()


class TeamSerializer(serializers.Serializer):
    """A team as its list shows it."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    personal = serializers.BooleanField(help_text="a user's own team of one (made at sign-up)")
    archived = serializers.SerializerMethodField()
    members = serializers.SerializerMethodField()

    def get_archived(self, team: Team) -> bool:
        return team.archived is not None

    @extend_schema_field(MemberSerializer(many=True))
    def get_members(self, team: Team) -> list[dict[str, str]]:
        rows = getattr(team, "current_members", None)  # a list's (queries.teams_with_members), else one query
        return [{"username": m.user.get_username()} for m in (queries.members(team) if rows is None else rows)
                if m.user is not None]


class TeamDetailSerializer(TeamSerializer):
    """A team: its members and bots for anyone; its join key for its members only, while it is not archived
    (no key otherwise)."""

    bots = serializers.SerializerMethodField()
    join_key = serializers.CharField(required=False, help_text="members only: the secret of the join link")

    @extend_schema_field(TeamBotSerializer(many=True))
    def get_bots(self, team: Team) -> list[dict[str, Any]]:
        return [{"id": b.pk, "name": b.name, "game": b.game} for b in queries.bots_of_team(team)]

    def to_representation(self, team: Team) -> dict[str, Any]:
        data = dict(super().to_representation(team))
        user = getattr(self.context.get("request"), "user", None)
        if not shows_join_key(user=user, team=team):
            data.pop("join_key", None)
        return data


#: A name far past the rule is refused before it is read, with the rule's words (not "at most 160");
#: a blank one is the service's to refuse, in the words the web form and the CLI show too.
_TOO_LONG = {"max_length": FAR_TOO_LONG}


class TeamCreate(Body):
    name = TextField(max_length=NAME_READ_MAX, trim_whitespace=False, allow_blank=True, error_messages=_TOO_LONG,
                     help_text=f"3 to {NAME_MAX} characters, no control characters; unique (case-insensitive)")


class TeamRename(Body):
    name = TextField(max_length=NAME_READ_MAX, trim_whitespace=False, required=False, allow_blank=True,
                     error_messages=_TOO_LONG,
                     help_text=f"the new name (not given: it stays): 3 to {NAME_MAX} characters, no control "
                               "characters; unique (case-insensitive)")


class JoinRequest(Body):
    key = TextField(max_length=200, help_text="the join key of the team's join link")


class RemoveRequest(Body):
    username = TextField(max_length=150, help_text="the member to remove")


class KeySerializer(serializers.Serializer):
    join_key = serializers.CharField(help_text="the new join key (the old one stops working)")


def _detail(request: Request, team: Team, code: int = status.HTTP_200_OK) -> Response:
    team.refresh_from_db()
    return Response(TeamDetailSerializer(team, context={"request": request}).data, status=code)


class TeamsView(APIView):
    """Your teams (the personal one first); create a team."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=answers({200: TeamSerializer(many=True)}))
    def get(self, request: Request) -> Response:
        return Response(TeamSerializer(queries.teams_with_members(user=request.user), many=True).data)

    @extend_schema(request=TeamCreate, responses=answers({201: TeamDetailSerializer}, 403, 409, 413, 415))
    def post(self, request: Request) -> Response:
        body = TeamCreate(data=request.data)
        body.is_valid(raise_exception=True)
        return _detail(request, services.create_team(user=request.user, name=body.validated_data["name"]),
                       status.HTTP_201_CREATED)


class TeamView(APIView):
    """One team: members and bots (anyone), its join key (its members); a member renames it."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=answers({200: TeamDetailSerializer}, 404))
    def get(self, request: Request, pk: int) -> Response:
        return _detail(request, services.get_team(team_id=pk))

    @extend_schema(request=TeamRename, responses=answers({200: TeamDetailSerializer}, 403, 404, 409, 413, 415))
    def patch(self, request: Request, pk: int) -> Response:
        """Rename the team (members only; not a personal or an archived team): the team as GET shows it."""
        team = services.get_team(team_id=pk)
        body = TeamRename(data=request.data)
        body.is_valid(raise_exception=True)
        return _detail(request, services.rename_team(user=request.user, team=team,
                                                        name=body.validated_data.get("name")))


class JoinView(APIView):
    """Join a team with its join key (refused when it is full: `ARMADA_TEAM_MAX_MEMBERS`)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=JoinRequest, responses=answers({200: TeamDetailSerializer}, 403, 404, 409, 413, 415))
    def post(self, request: Request, pk: int) -> Response:
        body = JoinRequest(data=request.data)
        body.is_valid(raise_exception=True)
        team = services.join_team(user=request.user, team=services.get_team(team_id=pk),
                                  key=body.validated_data["key"])
        return _detail(request, team)


class LeaveView(APIView):
    """Leave a team (its last member only once it is archived)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=answers({200: TeamDetailSerializer}, 403, 404, 409))
    def post(self, request: Request, pk: int) -> Response:
        return _detail(request, services.leave_team(user=request.user, team=services.get_team(team_id=pk)))


class RemoveView(APIView):
    """A member removes another member (recorded; their bots, matches and results stay)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=RemoveRequest, responses=answers({200: TeamDetailSerializer}, 403, 404, 409, 413,
                                                                    415))
    def post(self, request: Request, pk: int) -> Response:
        body = RemoveRequest(data=request.data)
        body.is_valid(raise_exception=True)
        team = services.remove_member(user=request.user, team=services.get_team(team_id=pk),
                                      username=body.validated_data["username"])
        return _detail(request, team)


class KeyView(APIView):
    """A member renews the join key: the old join link stops working."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=answers({200: KeySerializer}, 403, 404, 409))
    def post(self, request: Request, pk: int) -> Response:
        team = services.renew_key(user=request.user, team=services.get_team(team_id=pk))
        return Response(KeySerializer({"join_key": team.join_key}).data)


class ArchiveView(APIView):
    """A member archives the team: its bots stop playing; history and results stay."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=answers({200: TeamDetailSerializer}, 403, 404, 409))
    def post(self, request: Request, pk: int) -> Response:
        return _detail(request, services.archive_team(user=request.user, team=services.get_team(team_id=pk)))


class RestoreView(APIView):
    """A member or former member restores an archived team (a former member rejoins it)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=answers({200: TeamDetailSerializer}, 403, 404, 409))
    def post(self, request: Request, pk: int) -> Response:
        return _detail(request, services.restore_team(user=request.user, team=services.get_team(team_id=pk)))
