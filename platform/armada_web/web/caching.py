"""What a shared cache may keep: nothing answered to a signed-in user.

A page or an API answer for a signed-in user (session or token) may carry what is theirs alone
(a bot's log, its drawings, a team's join link), so it is marked `Cache-Control: private`
unless the view said otherwise: a proxy or CDN in front of the site never hands it to another.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control


class PrivateWhenSignedIn:
    """Adds `Cache-Control: private` to a signed-in user's responses that set no Cache-Control."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)  # (an API token's user too: DRF sets it on this request)
        if "Cache-Control" not in response and getattr(user, "is_authenticated", False):
            patch_cache_control(response, private=True)
        return response
