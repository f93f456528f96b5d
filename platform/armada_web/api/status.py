"""`GET /api/status/`: queue depths, matches ended in the last hour, the median wait, live workers,
the estimates for a version that starts playing now; staff also get the recent void and failed
matches with their reasons."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armada_web.api.estimates import NewVersionSerializer, new_version_data
from armada_web.api.schema import answers
from armada_web.ladder.queries import new_version_estimates
from armada_web.matches.status import status
from armada_web.web.roles import is_staff


class WorkerSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="the Celery node name, name@host")
    host = serializers.CharField(help_text="the worker host (its ARMADA_HOST_NAME: the node name's host part)")
    queues = serializers.ListField(child=serializers.CharField())


class ProblemSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.CharField()
    reason = serializers.CharField()
    finished = serializers.DateTimeField(allow_null=True)
    host = serializers.CharField(help_text="the worker host of its latest run (empty: never claimed)")


class StatusSerializer(serializers.Serializer):
    queues = serializers.DictField(child=serializers.IntegerField(allow_null=True),
                                   help_text="messages waiting per queue (null: Redis did not answer)")
    finished_last_hour = serializers.DictField(child=serializers.IntegerField(),
                                               help_text="matches finished in the last hour, per kind")
    ended_last_hour = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()),
                                            help_text="matches that ended in the last hour, per kind and status")
    median_wait_s = serializers.FloatField(allow_null=True, help_text="queued to started, last hour")
    hosts_last_hour = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()),
                                            help_text="matches that ended in the last hour, per worker host that "
                                            "played them and status")
    workers = WorkerSerializer(many=True)
    problems = ProblemSerializer(many=True, required=False, help_text="staff only: recent void and failed matches")
    new_version = serializers.DictField(
        child=NewVersionSerializer(), required=False,
        help_text="per game with ranked games: when a version that starts playing now should play its first "
                  "ranked game and settle (the /status/ page's estimates)")


class StatusView(APIView):
    """The arena's queues and workers now."""

    permission_classes = [AllowAny]

    @extend_schema(responses=answers({200: StatusSerializer}))
    def get(self, request: Request) -> Response:
        staff = is_staff(request.user)
        data = dict(StatusSerializer(status(staff=staff)).data)
        data["new_version"] = {game: new_version_data(estimate) for game, estimate in new_version_estimates().items()}
        if not staff:
            data.pop("problems", None)
        return Response(data)
