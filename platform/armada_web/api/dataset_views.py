"""The base view of the dataset's downloads, throttled twice (apart from api/throttles.py, which
DRF's settings import while `rest_framework.views` is being imported)."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from armada_web.api.throttles import AnonThrottle, CountedThrottle, DatasetThrottle, UserThrottle


class DatasetView(APIView):
    """A view of the dataset (`THROTTLE_DATASET` on top of the per-user or per-address limit): a
    request one throttle refuses is counted by none, so refusals of the dataset do not use up
    the rest of the API's budget."""

    throttle_classes: list[type[BaseThrottle]] = [AnonThrottle, UserThrottle, DatasetThrottle]

    def check_throttles(self, request: Request) -> None:
        """DRF's, but the throttles that allowed a request another refused take their count back."""
        allowed: list[BaseThrottle] = []
        waits: list[float | None] = []
        for throttle in self.get_throttles():
            if throttle.allow_request(request, self):
                allowed.append(throttle)
            else:
                waits.append(throttle.wait())
        if not waits:
            return
        for throttle in allowed:
            if isinstance(throttle, CountedThrottle):
                throttle.take_back()
        self.throttled(request, max((wait for wait in waits if wait is not None), default=None))
