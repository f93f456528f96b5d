"""Where accounts are seen from: a `Sighting` row (user, kind, client address, time) for each
sign-up, sign-in (a password checked: the log-in page or the API's token request), API token
created and, at most once per token and address per `TOKEN_USE_EVERY`, API token used.

The address is `armada_web.web.clients.client_address`: `X-Forwarded-For` only from the proxies
in ARMADA_TRUSTED_PROXIES. Token use is throttled by a cache key (one cache operation per API
request); when the key is new, a database look-up makes sure (the cache may be down or cleared),
so an API client costs one row an hour per address. Rows older than ARMADA_SIGHTINGS_KEEP_DAYS
are deleted by `manage.py prune_storage --apply`. The integrity checks read them (shared accounts,
docs/integrity.md); nothing else shows them but the admin.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils import timezone

from armada_web.accounts.models import ApiToken, Sighting, SightingKind
from armada_web.web.clients import client_address

#: A token's use from one address is recorded at most this often.
TOKEN_USE_EVERY = timedelta(hours=1)


def record(*, user: User, kind: SightingKind, request: Any, token: ApiToken | None = None,
           now: datetime | None = None) -> Sighting:
    """Record that `user` did `kind` from `request`'s client address."""
    return Sighting.objects.create(user=user, kind=kind, address=client_address(request), token=token,
                                   at=now or timezone.now())


def record_token_use(*, token: ApiToken, request: Any, now: datetime | None = None) -> bool:
    """Record a use of `token` from `request`'s client, unless one from that address is recorded
    within TOKEN_USE_EVERY; True when a row was written."""
    at = now or timezone.now()
    address = client_address(request)
    if not cache.add(f"sighting:token:{token.pk}:{address}", 1, timeout=int(TOKEN_USE_EVERY.total_seconds())):
        return False
    if Sighting.objects.filter(token=token, address=address, kind=SightingKind.TOKEN_USE,
                               at__gt=at - TOKEN_USE_EVERY).exists():
        return False
    Sighting.objects.create(user_id=token.user_id, kind=SightingKind.TOKEN_USE, address=address, token=token, at=at)
    return True


def expired(now: datetime | None = None) -> Any:
    """The rows older than ARMADA_SIGHTINGS_KEEP_DAYS (a queryset)."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.ARMADA.sightings_keep_days)
    return Sighting.objects.filter(at__lt=cutoff)


def prune(*, now: datetime | None = None) -> int:
    """Delete the rows older than ARMADA_SIGHTINGS_KEEP_DAYS; returns how many."""
    deleted, _ = expired(now).delete()
    return deleted
