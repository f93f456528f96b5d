"""The API's request throttles: per client address (anonymous) and per user (signed in).

DRF's own throttles keep a list of times in the cache, read and written back without a lock
(parallel requests all see the same list and all pass), and take the client from any
`X-Forwarded-For` (a new header value is a new client). These count in `armada_web.web.counters`
(Redis INCR, shared by every web process) and key on `armada_web.web.clients.client_address`. A
refused request is taken back: the limit is on the requests served. DRF asks every throttle of a
view and only the refusing one takes its count back, so a view with more than one that applies
(the dataset's) is an `api.dataset_views.DatasetView`: its `check_throttles` takes back the
others' counts too.

`DatasetThrottle` is a scoped one on top of those, for bulk downloads (the replays' list and each
replay file, `THROTTLE_DATASET`): per signed-in user, or per client address for anonymous clients.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from armada_web.web import counters
from armada_web.web.clients import client_address


class CountedThrottle(SimpleRateThrottle):
    """A throttle counting in `counters` under `name(request)` (None: not counted)."""

    _wait: float | None = None
    _counted: tuple[str, int] | None = None  # (an instance is made for each request)

    def name(self, request: Request) -> str | None:
        raise NotImplementedError

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None or self.num_requests is None or self.duration is None:
            return True
        name = self.name(request)
        if name is None:
            return True
        if counters.hit(name, self.duration) <= self.num_requests:
            self._counted = (name, self.duration)
            return True
        counters.undo(name, self.duration)
        self._wait = counters.seconds_left(self.duration)
        return False

    def wait(self) -> float | None:
        return self._wait

    def take_back(self) -> None:
        """Undo the count of the request this throttle allowed (another throttle refused it)."""
        if self._counted is not None:
            counters.undo(*self._counted)
            self._counted = None


class AnonThrottle(CountedThrottle):
    """`THROTTLE_ANON` requests per anonymous client address."""

    scope = "anon"

    def name(self, request: Request) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return f"throttle:anon:{client_address(request)}"


class UserThrottle(CountedThrottle):
    """`THROTTLE_USER` requests per signed-in user."""

    scope = "user"

    def name(self, request: Request) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return f"throttle:user:{request.user.pk}"


class DatasetThrottle(CountedThrottle):
    """`THROTTLE_DATASET` requests of the replays' list and replay files per user (per address when anonymous)."""

    scope = "dataset"

    def name(self, request: Request) -> str | None:
        if request.user and request.user.is_authenticated:
            return f"throttle:dataset:user:{request.user.pk}"
        return f"throttle:dataset:anon:{client_address(request)}"

