"""`/api/bots/`: list, create, show, delete, retire, choose the active version, upload a version."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from armada_web.api.estimates import NextGameSerializer, next_game_data
from armada_web.api.fields import Body, BooleanFilter, IdField, TextField, absolute, query_flag
from armada_web.api.pagination import KeyedPageNumber, page_openapi_parameters
from armada_web.api.schema import answers
from armada_web.api.versions import VersionSerializer
from armada_web.bots import moves, queries, services
from armada_web.bots.logic.names import NAME_RE, NAME_RULE
from armada_web.bots.models import Bot, BotVersion, Game
from armada_web.games import spec
from armada_web.jobs.notes import shown_note
from armada_web.ladder.queries import next_ranked_game
from armada_web.storage.archives import check_request_size
from armada_web.web.errors import Invalid
from armada_web.web.snapshots import one_moment

#: Versions a bot's detail lists (the newest); a bot's whole history is paged at .../versions/.
DETAIL_VERSIONS = 100


class VersionSummary(serializers.ModelSerializer):
    class Meta:
        model = BotVersion
        fields = ["id", "number", "status", "detail", "created"]

    def to_representation(self, version: BotVersion) -> dict[str, Any]:
        data = super().to_representation(version)
        data["detail"] = shown_note(version.detail, user=getattr(self.context.get("request"), "user", None))
        return data


class BotTeamSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.SerializerMethodField()
    team = serializers.SerializerMethodField()
    active_version = serializers.SerializerMethodField()
    retired = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "owner", "team", "description", "active_version", "created", "retired",
                  "disabled", "url"]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_owner(self, bot: Bot) -> str | None:
        return bot.owner.username if bot.owner else None

    @extend_schema_field(BotTeamSerializer)
    def get_team(self, bot: Bot) -> dict[str, Any]:
        """The team whose members manage the bot."""
        return {"id": bot.team_id, "name": bot.team.name}

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_active_version(self, bot: Bot) -> int | None:
        return bot.active_version_id

    def get_retired(self, bot: Bot) -> bool:
        return bot.retired is not None

    def get_url(self, bot: Bot) -> str:
        return absolute(self.context, f"/bots/{bot.pk}/")


class BotDetailSerializer(BotSerializer):
    versions = serializers.SerializerMethodField()
    pinned = serializers.BooleanField()
    next_game = serializers.SerializerMethodField()

    class Meta(BotSerializer.Meta):
        fields = [*BotSerializer.Meta.fields, "pinned", "versions", "next_game"]

    @extend_schema_field(NextGameSerializer(allow_null=True))
    def get_next_game(self, bot: Bot) -> dict[str, Any] | None:
        """The bot page's estimate of its next ranked game (null for a game without ranked games)."""
        return next_game_data(next_ranked_game(bot.pk)) if spec(bot.game).rated else None

    @extend_schema_field(VersionSummary(many=True))
    def get_versions(self, bot: Bot) -> list[dict[str, Any]]:
        """The newest DETAIL_VERSIONS versions (all of them, paged: GET /api/bots/{id}/versions/)."""
        return list(VersionSummary(queries.versions_of(bot)[:DETAIL_VERSIONS], many=True, context=self.context).data)


@extend_schema_field({"type": "string", "pattern": f"^{NAME_RE.pattern}$"})
class BotNameField(TextField):
    """A bot's name as the schema shows it; `bots.services.create_bot` checks it (`bots.logic.names`)."""


class BotCreate(Body):
    name = BotNameField(max_length=100, help_text=NAME_RULE)
    game = serializers.ChoiceField(choices=Game.choices)
    description = TextField(max_length=services.DESCRIPTION_MAX, required=False, allow_blank=True, default="")
    team = IdField(required=False, help_text="the id of a team you are a member of (default: your personal team)")


class BotFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    owner = django_filters.CharFilter(field_name="owner__username", lookup_expr="iexact")
    name = django_filters.CharFilter(field_name="name", lookup_expr="iexact")
    search = django_filters.CharFilter(method="filter_search")
    retired = BooleanFilter(field_name="retired", lookup_expr="isnull", exclude=True)

    class Meta:
        model = Bot
        fields = ["game", "owner", "name", "search", "retired"]

    def filter_search(self, queryset: QuerySet[Bot], name: str, value: str) -> QuerySet[Bot]:
        return queries.search(queryset, value)


class MoveRequest(Body):
    team = IdField(help_text="the id of a team you are a member of (the bot must be in your personal team)")


class ActiveVersion(Body):
    version = IdField(help_text="the id of a valid version of this bot")


@extend_schema_view(
    list=extend_schema(responses=answers({200: BotSerializer(many=True)}, 400, 404)),
    retrieve=extend_schema(responses=answers({200: BotDetailSerializer}, 404)),
    destroy=extend_schema(responses=answers({204: None}, 403, 404, 409), parameters=[OpenApiParameter(
        "if_empty", bool, description="true: delete it only while it has no version (409 otherwise): `armada "
        "submit` takes back a bot it made for an upload the site refused, never one another upload reached")]),
)
class BotViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin,
                 viewsets.GenericViewSet):
    """Bots: anyone reads, a signed-in user creates, the owner changes."""

    queryset = queries.bots()
    lookup_value_converter = "id"  # armada_web.web.inputs: a positive 63-bit integer, else 404
    permission_classes = [IsAuthenticatedOrReadOnly]
    filterset_class = BotFilter
    #: Set by the upload action: its route takes an upload's body (armada_web.web.inputs.body_limit).
    takes_upload = False

    def get_serializer_class(self) -> type[serializers.BaseSerializer]:
        return BotDetailSerializer if self.action == "retrieve" else BotSerializer

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """The bot, its active version and its versions as they stood at one moment."""
        with one_moment():
            return super().retrieve(request, *args, **kwargs)

    def _detail(self, bot: Bot, code: int = status.HTTP_200_OK) -> Response:
        bot.refresh_from_db()
        return Response(BotDetailSerializer(bot, context=self.get_serializer_context()).data, status=code)

    @extend_schema(request=BotCreate, responses=answers({201: BotDetailSerializer}, 400, 403, 409, 413, 415))
    def create(self, request: Request) -> Response:
        body = BotCreate(data=request.data)
        body.is_valid(raise_exception=True)
        bot = services.create_bot(user=request.user, **body.validated_data)
        return self._detail(bot, status.HTTP_201_CREATED)

    def perform_destroy(self, instance: Bot) -> None:
        services.delete_bot(bot=instance, user=self.request.user, only_if_empty=query_flag(self.request, "if_empty"))

    @extend_schema(request=None, responses=answers({200: BotDetailSerializer}, 403, 404, 409))
    @action(detail=True, methods=["post"])
    def retire(self, request: Request, pk: int) -> Response:
        return self._detail(services.retire_bot(bot=self.get_object(), user=request.user))

    @extend_schema(request=ActiveVersion, responses=answers({200: BotDetailSerializer}, 400, 403, 404, 409, 413,
                                                            415))
    @action(detail=True, methods=["post"])
    def active(self, request: Request, pk: int) -> Response:
        bot = self.get_object()
        body = ActiveVersion(data=request.data)
        body.is_valid(raise_exception=True)
        return self._detail(services.set_active(bot=bot, user=request.user, version_id=body.validated_data["version"]))

    @extend_schema(request=MoveRequest, responses=answers({200: BotDetailSerializer}, 400, 403, 404, 409, 413,
                                                                  415))
    @action(detail=True, methods=["post"])
    def move(self, request: Request, pk: int) -> Response:
        """Move a bot of your personal team to a team you are in (its id, matches and ratings stay)."""
        bot = self.get_object()
        body = MoveRequest(data=request.data)
        body.is_valid(raise_exception=True)
        return self._detail(moves.move_bot(bot=bot, user=request.user, team=body.validated_data["team"]))

    @extend_schema(methods=["GET"], request=None, parameters=page_openapi_parameters(),
                   responses=answers({200: inline_serializer("PagedVersions", {
        "count": serializers.IntegerField(), "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True), "results": VersionSummary(many=True)})}, 400, 404))
    @extend_schema(
        methods=["POST"],
        request={"multipart/form-data": inline_serializer("Upload", {"file": serializers.FileField(
            help_text="main.py, or a zip with main.py at its top or in one top folder")})},
        responses=answers({201: VersionSerializer}, 400, 403, 404, 409, 413, 415, 503),
    )
    @action(detail=True, methods=["get", "post"], parser_classes=[MultiPartParser, FormParser], takes_upload=True)
    def versions(self, request: Request, pk: int) -> Response:
        """GET: the bot's versions, newest first, paged; POST: upload a new version (the owner)."""
        bot = self.get_object()
        if request.method == "GET":
            paginator = KeyedPageNumber()
            page = paginator.paginate_queryset(queries.versions_of(bot), request, view=self) or []
            return paginator.get_paginated_response(VersionSummary(page, many=True, context={"request": request}).data)
        check_request_size(content_length=request.META.get("CONTENT_LENGTH"), game=bot.game)
        upload = request.FILES.get("file")  # streamed to a temporary file past FILE_UPLOAD_MAX_MEMORY_SIZE
        if upload is None and "file" in request.data:  # a part named file, but no file in it (a chaos trial)
            raise Invalid('the form field "file" came without a file: send it as a file part with a file name '
                          '(UTF-8, not empty), e.g. curl -F file=@main.py')
        if upload is None:
            raise Invalid('send the bot as a multipart form field named "file" (with a file name, e.g. curl -F '
                          'file=@main.py), in a whole body')
        others = sorted({*request.data.keys(), *request.FILES.keys()} - {"file"})
        if others or len(request.FILES.getlist("file")) > 1:
            raise Invalid('send one multipart form field, "file", once' + (
                f"; also sent: {', '.join(name[:40] for name in others[:5])}" if others else ""))
        version = services.upload_version(bot=bot, user=request.user, filename=upload.name or "upload",
                                          data=upload.file)
        return Response(VersionSerializer(version, context={"request": request}).data, status=status.HTTP_201_CREATED)
