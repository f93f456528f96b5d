"""`POST /api/tokens/` (username + password -> a new named token), list and revoke tokens, `GET /api/me/`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import armada
from armada_web.accounts import addresses, queries, services
from armada_web.accounts.models import ApiToken
from armada_web.api.fields import Body, TextField
from armada_web.api.pagination import PageNumber, page_openapi_parameters
from armada_web.api.schema import answers
from armada_web.teams.queries import teams_of


class TokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "created", "last_used"]


class TokenRequest(Body):
    username = TextField(max_length=150)
    password = TextField(max_length=4096, trim_whitespace=False)
    name = TextField(max_length=services.TOKEN_NAME_MAX)


class NewTokenSerializer(TokenSerializer):
    token = serializers.CharField(source="secret", help_text="the secret: shown once, never stored")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]


class TokenPage(serializers.Serializer):
    """A page of the user's tokens (the API's pagination, api/pagination.py)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = TokenSerializer(many=True)


class TeamRef(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    personal = serializers.BooleanField()


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(help_text="the confirmed address, the only one mail goes to; empty when none")
    email_confirmed = serializers.SerializerMethodField(help_text="true when `email` is set (confirmed by its link)")
    email_pending = serializers.SerializerMethodField(help_text="an address waiting for its confirmation link; "
                                                      "empty when none")
    date_joined = serializers.DateTimeField()
    is_staff = serializers.BooleanField()
    teams = serializers.SerializerMethodField()

    def get_email_confirmed(self, user: Any) -> bool:
        return bool(user.email)

    def get_email_pending(self, user: Any) -> str:
        change = addresses.pending(user=user)
        return change.address if change is not None else ""

    @extend_schema_field(TeamRef(many=True))
    def get_teams(self, user: Any) -> list[dict[str, Any]]:
        """The teams the user is in now, the personal one first."""
        return [{"id": t.pk, "name": t.name, "personal": t.personal} for t in teams_of(user=user)]


class ApiVersionSerializer(serializers.Serializer):
    api = serializers.IntegerField(help_text="the API's version")
    sdk = serializers.CharField(help_text="the SDK version the site serves")
    upload_max_bytes = serializers.DictField(child=serializers.IntegerField(), help_text="the largest version "
                                            "(the uploaded file) each game takes, in bytes, by game")
    upload_max_unpacked_bytes = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="the most a version of each game may hold unpacked, in bytes, by game")
    upload_max_files = serializers.IntegerField(help_text="the most entries a version's zip may hold")


class TokensView(APIView):
    """Create a token from a username and password (the CLI's `armada login`), or list yours."""

    throttle_classes: list[Any] = []  # password attempts are limited by accounts.throttles

    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(responses=answers({200: TokenPage}, 400, 404),
                   parameters=page_openapi_parameters())
    def get(self, request: Request) -> Response:
        paginator = PageNumber()
        page = paginator.paginate_queryset(queries.tokens_of(request.user), request, view=self)
        return paginator.get_paginated_response(TokenSerializer(page, many=True).data)

    @extend_schema(request=TokenRequest, responses=answers({201: NewTokenSerializer}, 400, 403, 413, 415))
    def post(self, request: Request) -> Response:
        body = TokenRequest(data=request.data)
        body.is_valid(raise_exception=True)
        user = services.check_password(request=request._request, username=body.validated_data["username"],
                                       password=body.validated_data["password"])
        token, secret = services.create_token(user=user, name=body.validated_data["name"], request=request._request)
        token.secret = secret  # type: ignore[attr-defined]  # shown in this one answer, never stored
        return Response(NewTokenSerializer(token).data, status=status.HTTP_201_CREATED)


class TokenDetailView(APIView):
    """Revoke one of your tokens."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=answers({204: None}, 403, 404))
    def delete(self, request: Request, pk: int) -> Response:
        services.revoke_token(user=request.user, token_id=pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    """The authenticated user."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=answers({200: UserSerializer}))
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)


class ApiVersionView(APIView):
    """The API's version and the SDK version the site serves (the CLI warns when it is older)."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({200: ApiVersionSerializer}))
    def get(self, request: Request) -> Response:
        limits = {slug: settings.ARMADA.upload_limit(slug) for slug in settings.ARMADA.games}
        return Response(ApiVersionSerializer({
            "api": settings.API_VERSION, "sdk": armada.__version__,
            "upload_max_bytes": {slug: upload for slug, (upload, _unpacked) in limits.items()},
            "upload_max_unpacked_bytes": {slug: unpacked for slug, (_upload, unpacked) in limits.items()},
            "upload_max_files": settings.ARMADA.upload_max_files}).data)
