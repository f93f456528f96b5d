"""`/api/events/` (create; list the events you may see), `/api/events/{slug}/` (a private event
answers 404 to anyone not in it), `.../invitations/` (its owner invites teams or users),
`.../entries/` (enter a bot with the invite, or one of an invited team) and `.../start/`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.fields import Body, absolute, typed_json
from armada_web.api.schema import answers
from armada_web.bots.models import Game
from armada_web.events import queries, services
from armada_web.events.access import is_owner
from armada_web.events.models import Event, EventFormat
from armada_web.teams.logic.names import DELETED_USER
from armada_web.web.inputs import MAX_ID

#: The bounds of an event's numbers as this site is configured (runtime.config).
_LIMITS = settings.ARMADA


class EventRequest(Body):
    name = typed_json({"type": "string", "minLength": 1, "maxLength": services.NAME_MAX, "pattern": r"\S"})
    game = typed_json({"type": "string", "enum": list(Game.values)})
    format = typed_json({"type": "string", "enum": list(EventFormat.values)}, help_text="round_robin or ladder")
    games_per_pair = typed_json({"type": "integer", "minimum": 1, "maximum": _LIMITS.event_max_games_per_pair},
                                nullable=True, required=False, help_text="round robin: games of each pair (default 1)")
    starts = typed_json({"type": "string", "format": "date-time"}, nullable=True, required=False,
                        help_text="ISO 8601: it starts by itself then")
    ends = typed_json({"type": "string", "format": "date-time"}, nullable=True, required=False,
                      help_text="ISO 8601 (a ladder's end; required for a ladder)")
    public = typed_json({"type": "boolean"}, nullable=True, required=False,
                        help_text="anyone may see it (default false)")
    max_entrants = typed_json({"type": "integer", "minimum": 2, "maximum": _LIMITS.event_max_entrants}, nullable=True,
                              required=False)


class EventEdit(Body):
    name = typed_json({"type": "string", "minLength": 1, "maxLength": services.NAME_MAX, "pattern": r"\S"},
                      required=False)
    games_per_pair = typed_json({"type": "integer", "minimum": 1, "maximum": _LIMITS.event_max_games_per_pair},
                                required=False, help_text="round robin, while open")
    starts = typed_json({"type": "string", "format": "date-time"}, nullable=True, required=False,
                        help_text="while open; null: its owner starts it")
    ends = typed_json({"type": "string", "format": "date-time"}, nullable=True, required=False,
                      help_text="while open, or a running ladder's")
    max_entrants = typed_json({"type": "integer", "minimum": 2, "maximum": _LIMITS.event_max_entrants},
                              required=False, help_text="while open; not below its entries")


class EntryRequest(Body):
    bot = typed_json({"type": "integer", "minimum": 1, "maximum": MAX_ID}, refusal="give your bot's id as an integer",
                     help_text="your bot's id")
    invite = typed_json({"type": "string", "maxLength": 200}, nullable=True, required=False,
                        help_text="the event's invite code (its owner needs none)")


class InvitationRequest(Body):
    teams = typed_json({"type": "array", "maxItems": services.INVITE_MAX,
                        "items": {"type": "integer", "minimum": 1, "maximum": MAX_ID}}, required=False,
                       help_text="the ids of the teams to invite")
    users = typed_json({"type": "array", "maxItems": services.INVITE_MAX,
                        "items": {"type": "string", "minLength": 1, "maxLength": 150}}, required=False,
                       help_text="the usernames of the users to invite (each as their personal team)")
    team_names = typed_json({"type": "array", "maxItems": services.INVITE_MAX,
                             "items": {"type": "string", "minLength": 1, "maxLength": 40}}, required=False,
                            help_text="the names of teams to invite (case-insensitive)")


class InvitedTeam(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    personal = serializers.BooleanField(help_text="a user's personal team: the user was invited")


class EventTeamRef(serializers.Serializer):
    id = serializers.IntegerField(source="entry.team_id")
    name = serializers.CharField(source="entry.team_name")


def entry_team(row: Any) -> dict[str, Any] | None:
    """The entry's team as the API gives it (null once that team is gone, or from before teams)."""
    return dict(EventTeamRef(row).data) if row.entry.team_id is not None else None


class EventBotRef(serializers.Serializer):
    id = serializers.IntegerField(source="entry.bot_ref")
    name = serializers.CharField(source="entry.bot_name")
    team = serializers.SerializerMethodField(help_text="its team when it entered, as the row's `team`")

    @extend_schema_field(EventTeamRef(allow_null=True))
    def get_team(self, row: Any) -> dict[str, Any] | None:
        return entry_team(row)


class TableRowSerializer(serializers.Serializer):
    place = serializers.IntegerField(allow_null=True, help_text="null for every row of an event that ended "
                                                                 "before it started")
    bot = EventBotRef(source="*")
    owner = serializers.CharField()
    team = serializers.SerializerMethodField(help_text="the bot's team when it entered (null once that team is "
                                                       "gone, or for an entry from before teams)")
    played = serializers.IntegerField(source="entry.games")
    wins = serializers.IntegerField(source="entry.wins")
    draws = serializers.IntegerField(source="entry.draws")
    losses = serializers.IntegerField(source="entry.losses")
    points = serializers.IntegerField(source="entry.points")

    @extend_schema_field(EventTeamRef(allow_null=True))
    def get_team(self, row: Any) -> dict[str, Any] | None:
        return entry_team(row)


class EventSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    game = serializers.CharField()
    format = serializers.CharField()
    state = serializers.CharField()
    public = serializers.BooleanField()
    owner = serializers.SerializerMethodField()
    games_per_pair = serializers.IntegerField(allow_null=True)
    starts = serializers.DateTimeField(allow_null=True)
    ends = serializers.DateTimeField(allow_null=True)
    max_entrants = serializers.IntegerField()
    entries = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    def get_owner(self, event: Event) -> str:
        return event.owner.username if event.owner is not None else DELETED_USER

    def get_entries(self, event: Event) -> int:
        counted = getattr(event, "entry_count", None)  # a list's (queries.visible_events), else one count
        return int(counted) if counted is not None else event.entries.count()

    def get_url(self, event: Event) -> str:
        return absolute(self.context, f"/events/{event.slug}/")


class EventDetailSerializer(EventSerializer):
    invited = serializers.SerializerMethodField(help_text="the teams invited (a user's invitation: their "
                                                          "personal team)")
    table = serializers.SerializerMethodField()
    games_done = serializers.SerializerMethodField(help_text="games planned that are done: played, or skipped")
    games_played = serializers.SerializerMethodField(help_text="games played and counted in the table")
    games_total = serializers.SerializerMethodField(help_text="round robin: games planned (0 before it starts); "
                                                              "null for a ladder event, which plays until it ends")

    @extend_schema_field(TableRowSerializer(many=True))
    def get_table(self, event: Event) -> list[dict[str, Any]]:
        return list(TableRowSerializer(queries.table(event), many=True).data)

    @extend_schema_field(InvitedTeam(many=True))
    def get_invited(self, event: Event) -> list[dict[str, Any]]:
        return list(InvitedTeam(queries.invited_teams(event), many=True).data)

    def get_games_done(self, event: Event) -> int:
        return queries.games_done(event)

    def get_games_played(self, event: Event) -> int:
        return queries.games_played(event)

    def get_games_total(self, event: Event) -> int | None:
        return None if event.format == EventFormat.LADDER else event.games_total


class NewEventSerializer(EventDetailSerializer):
    """The event just created, with its invite code (shown to its owner)."""

    invite = serializers.CharField(help_text="the code members give to enter")


class OwnedEventSerializer(EventDetailSerializer):
    """An event as its owner sees it: with the invite code (no `invite` key for anyone else)."""

    invite = serializers.CharField(required=False, help_text="its owner only")

    def to_representation(self, event: Event) -> dict[str, Any]:
        data = super().to_representation(event)
        if not is_owner(user=getattr(self.context.get("request"), "user", None), event=event):
            data.pop("invite", None)
        return data


@extend_schema_view(get=extend_schema(responses=answers({200: EventSerializer(many=True)}, 400, 404)))
class EventsView(ListAPIView):
    """Create an event (signed in), or list the events you may see (public ones, yours, those you entered)."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = EventSerializer

    def get_queryset(self) -> Any:
        return queries.visible_events(self.request.user)

    @extend_schema(request=EventRequest, responses=answers({201: NewEventSerializer}, 400, 403, 409, 413, 415))
    def post(self, request: Request) -> Response:
        body = EventRequest(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        event = services.create_event(user=request.user, **body.validated_data)
        return Response(NewEventSerializer(event, context={"request": request}).data, status=status.HTTP_201_CREATED)


INVITE = OpenApiParameter("invite", str, description="the invite code: see a private event before entering it")


class EventView(APIView):
    """An event and its table (a private event answers 404 to anyone not in it, or without its invite
    code); its owner changes it (PATCH: the fields given)."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(parameters=[INVITE], responses=answers({200: OwnedEventSerializer}, 404))
    def get(self, request: Request, slug: str) -> Response:
        event = queries.visible_event(user=request.user, slug=slug, invite=request.query_params.get("invite"))
        return Response(OwnedEventSerializer(event, context={"request": request}).data)

    @extend_schema(request=EventEdit, responses=answers({200: OwnedEventSerializer}, 400, 403, 404, 409, 413, 415))
    def patch(self, request: Request, slug: str) -> Response:
        body = EventEdit(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        event = services.edit_event(user=request.user, event=queries.event(slug), **body.validated_data)
        return Response(OwnedEventSerializer(event, context={"request": request}).data)


class InvitationsView(APIView):
    """The teams an event invited; its owner invites teams (ids) or users (usernames: their personal
    teams): their members see the event and enter one of the invited team's bots without the code."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(parameters=[INVITE], responses=answers({200: InvitedTeam(many=True)}, 404))
    def get(self, request: Request, slug: str) -> Response:
        # (the event's own page shows these teams to whoever holds its invite link: so does this list)
        event = queries.visible_event(user=request.user, slug=slug, invite=request.query_params.get("invite"))
        return Response(InvitedTeam(queries.invited_teams(event), many=True).data)

    @extend_schema(request=InvitationRequest,
                   responses=answers({201: InvitedTeam(many=True)}, 400, 403, 404, 409, 413, 415))
    def post(self, request: Request, slug: str) -> Response:
        body = InvitationRequest(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        teams = services.invite_teams(user=request.user, event=queries.event(slug),
                                      teams=body.validated_data.get("teams"), users=body.validated_data.get("users"),
                                      team_names=body.validated_data.get("team_names"))
        return Response(InvitedTeam(teams, many=True).data, status=status.HTTP_201_CREATED)


class InvitationView(APIView):
    """Its owner takes back a team's invitation."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=answers({204: None}, 400, 403, 404, 409))
    def delete(self, request: Request, slug: str, team_id: int) -> Response:
        services.uninvite(user=request.user, event=queries.event(slug), team_id=team_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InviteView(APIView):
    """Its owner replaces the invite code: the old link stops working."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=answers({200: OwnedEventSerializer}, 403, 404, 409))
    def post(self, request: Request, slug: str) -> Response:
        event = services.renew_invite(user=request.user, event=queries.event(slug))
        return Response(OwnedEventSerializer(event, context={"request": request}).data)


class EntriesView(APIView):
    """Enter a valid bot of one of your teams (one per member, one per team) with the event's invite
    code, or a bot of a team the event invited."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=EntryRequest, responses=answers({201: TableRowSerializer}, 400, 403, 404, 409, 413, 415))
    def post(self, request: Request, slug: str) -> Response:
        body = EntryRequest(data=request.data if isinstance(request.data, dict) else {})
        body.is_valid(raise_exception=True)
        event = queries.event(slug)
        entry = services.enter(user=request.user, event=event, bot_id=body.validated_data["bot"],
                               invite=body.validated_data.get("invite"))
        row = next(r for r in queries.table(event) if r.entry.pk == entry.pk)
        return Response(TableRowSerializer(row).data, status=status.HTTP_201_CREATED)


class EntryView(APIView):
    """A bot leaves an open event: asked by a member of its team or by the event's owner."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=answers({204: None}, 400, 403, 404, 409))
    def delete(self, request: Request, slug: str, bot_id: int) -> Response:
        services.withdraw(user=request.user, event=queries.event(slug), bot_id=bot_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EndView(APIView):
    """Its owner ends an open or running event now: its table is frozen as it stands."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=answers({200: OwnedEventSerializer}, 403, 404, 409))
    def post(self, request: Request, slug: str) -> Response:
        event = services.end_event(user=request.user, event=queries.event(slug))
        return Response(OwnedEventSerializer(event, context={"request": request}).data)


class StartView(APIView):
    """Its owner starts an open event with at least two entries."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=answers({200: OwnedEventSerializer}, 403, 404, 409))
    def post(self, request: Request, slug: str) -> Response:
        event = services.start_event(user=request.user, event=queries.event(slug))
        return Response(OwnedEventSerializer(event, context={"request": request}).data)
