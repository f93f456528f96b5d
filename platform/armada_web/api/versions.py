"""`/api/versions/{id}/` (public status; the log and who uploaded it for its team and staff), its `source/`
and its validation game's `replay/` (the bot's team and staff)."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse, Http404, HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.dataset_views import DatasetView
from armada_web.api.fields import absolute
from armada_web.api.schema import answers
from armada_web.bots import queries, storage
from armada_web.bots.access import can_see_private
from armada_web.bots.logic.resources import shown
from armada_web.bots.models import BotVersion
from armada_web.jobs.notes import shown_note


class ResourcesSerializer(serializers.Serializer):
    """What the version's validation game used against its budgets (null: not measured), from the version."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return super().to_representation(shown(instance.resources))

    init_ms = serializers.IntegerField(allow_null=True, help_text="its init reply's time (ms)")
    init_budget_ms = serializers.IntegerField(allow_null=True, help_text="the game's init_ms")
    memory_peak_mib = serializers.IntegerField(allow_null=True, help_text="its container's memory peak (MiB)")
    memory_limit_mib = serializers.IntegerField(allow_null=True, help_text="the game's sandbox memory limit (MiB)")


class VersionSerializer(serializers.Serializer):
    """A version as the API shows it to the request's user: `log`, `size`, `files`, `sha256`, `resources`
    and `uploaded_by` only to its team and staff."""

    id = serializers.IntegerField()
    bot = serializers.IntegerField(source="bot_id")
    bot_name = serializers.CharField(source="bot.name")
    game = serializers.CharField(source="bot.game")
    number = serializers.IntegerField()
    status = serializers.CharField()
    detail = serializers.CharField()
    size = serializers.IntegerField(required=False, help_text="the archive's bytes: team and staff only (an "
                                    "unchanged starter's size names it, and a model's size shows in it)")
    files = serializers.IntegerField(required=False, help_text="the archive's files: team and staff only")
    sha256 = serializers.CharField(required=False, help_text="the archive's SHA-256: team and staff only (it "
                                   "would tell anyone whether a bot is a given file, a starter say)")
    race_name = serializers.CharField()
    attempts = serializers.IntegerField()
    created = serializers.DateTimeField()
    started = serializers.DateTimeField(allow_null=True)
    finished = serializers.DateTimeField(allow_null=True)
    active = serializers.SerializerMethodField()
    resources = ResourcesSerializer(source="*", required=False, help_text="what its validation used against the "
                                    "budgets: team and staff only (a model's size shows in it)")
    uploaded_by = serializers.CharField(source="uploaded_by.username", allow_null=True, required=False,
                                        help_text="the username of the team's member who uploaded it: team and "
                                        "staff only; null for a version from before it was recorded, or once "
                                        "that account was deleted")
    url = serializers.SerializerMethodField()
    log = serializers.CharField(required=False, help_text="the bot's stderr tail: its team and staff only")

    def get_active(self, version: BotVersion) -> bool:
        return version.bot.active_version_id == version.pk

    def get_url(self, version: BotVersion) -> str:
        return absolute(self.context, f"/bots/{version.bot_id}/versions/{version.number}/")

    def to_representation(self, version: BotVersion) -> dict[str, Any]:
        data = super().to_representation(version)
        request = self.context.get("request")
        data["detail"] = shown_note(version.detail, user=getattr(request, "user", None))
        if not can_see_private(user=getattr(request, "user", None), bot=version.bot):
            for private in ("log", "size", "files", "sha256"):
                data.pop(private, None)
            data.pop("resources", None)
            data.pop("uploaded_by", None)
        return data


class VersionView(APIView):
    """One bot version: status and validation detail (public), the bot's log and its uploader (the bot's team
    and staff)."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({200: VersionSerializer}, 404))
    def get(self, request: Request, pk: int) -> Response:
        version = queries.version_for(pk)
        if version is None:
            raise Http404("no such version")
        return Response(VersionSerializer(version, context={"request": request}).data)


class VersionSourceView(DatasetView):
    """The version's archive (a zip with main.py at its top): its team and staff only; 404 for anyone
    else. A bulk download (THROTTLE_DATASET): an archive of up to ARMADA_UPLOAD_MAX_BYTES."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({(200, "application/zip"): OpenApiResponse(description="the archive")}, 404, 503))
    def get(self, request: Request, pk: int) -> FileResponse:
        version = queries.private_version_for(request.user, pk)
        handle = storage.open_archive(version) if version is not None else None
        if version is None or handle is None:
            raise Http404("no such version")
        response = FileResponse(handle, as_attachment=True, filename=storage.download_name(version),
                                content_type="application/zip")
        response["Cache-Control"] = "private, no-store"
        return response


class VersionReplayView(DatasetView):
    """The replay of the version's validation game (gzip JSON, replay format v1): its team and staff only;
    404 for anyone else, and for a version with none (not played yet, or validated before they were kept).
    A bulk download (THROTTLE_DATASET), as the matches' replays."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({(200, "application/gzip"): OpenApiResponse(description="the replay")}, 404, 503))
    def get(self, request: Request, pk: int) -> HttpResponse:
        version = queries.private_version_for(request.user, pk)
        data = storage.read_validation_replay(version) if version is not None else None
        if version is None or data is None:
            raise Http404("no such version, or no validation replay")
        response = HttpResponse(data, content_type="application/gzip")
        response["Content-Disposition"] = f'inline; filename="{storage.validation_replay_download_name(version)}"'
        response["Cache-Control"] = "private, no-store"
        return response
