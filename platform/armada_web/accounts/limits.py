"""How often someone may do something: per-user and per-pair limits over a sliding window,
checked and counted in the database in the same transaction as the write they limit.

`take` locks the counter row of (action, key) (created on first use), counts its uses within the
window and records one more, or raises RateLimited. Called inside the write's transaction (an
upload, a challenge), so parallel requests are counted one after the other and a write that
fails afterwards takes its use back with it; the uses are rows of their own, so deleting what
they made (a bot and its versions) frees nothing. New limits (events, ...) follow the same
pattern: a key that names whom the limit is per, `take` inside the write's `transaction.atomic`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from armada_web.accounts.models import LimitCounter, LimitUse
from armada_web.web.errors import RateLimited


def user_key(user_id: int) -> str:
    return f"user:{user_id}"


def team_key(team_id: int) -> str:
    """The key of a team's limits (a team of four counts as one, not four)."""
    return f"team:{team_id}"


def pair_key(a: int, b: int) -> str:
    """The key of a pair of objects, whichever comes first."""
    low, high = sorted((a, b))
    return f"pair:{low}-{high}"


def in_words(seconds: float) -> str:
    """A wait for a message: 'about 3 minutes', 'a few seconds'."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    if seconds >= 90 * 60:  # a day's limit: "about 23 hours", not 1,380 minutes
        hours = round(seconds / 3600)
        return f"about {hours} hours"
    minutes = max(1, round(seconds / 60))
    return f"about {minutes} minute{'s' if minutes != 1 else ''}"


def take(*, action: str, key: str, limit: int, window_s: int, refusal: str) -> None:
    """Count one `action` for `key` now; RateLimited (`refusal` and how long to wait) when `limit`
    uses are counted within the last `window_s` seconds already. Must run inside the transaction
    of the write it limits."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("limits.take must run inside the transaction of the write it limits")
    counter, _created = LimitCounter.objects.get_or_create(action=action, key=key)
    LimitCounter.objects.select_for_update().filter(pk=counter.pk).first()
    now = timezone.now()
    since = now - timedelta(seconds=window_s)
    counter.uses.filter(at__lte=since).delete()
    if limit <= 0:
        raise RateLimited(refusal)
    recent = list(counter.uses.order_by("at").values_list("at", flat=True)[:limit])
    if len(recent) >= limit:
        wait_s = (recent[0] - since).total_seconds()
        raise RateLimited(f"{refusal}; try again in {in_words(wait_s)}", retry_after_s=wait_s)
    LimitUse.objects.create(counter=counter, at=now)


def hold(*, action: str, key: str) -> None:
    """Lock (`action`, `key`) until the transaction ends (its counter's row, made when missing), so
    two requests about one key (two sign-ups of one name) are taken one after the other."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("limits.hold must run inside the transaction it serialises")
    counter, _created = LimitCounter.objects.get_or_create(action=action, key=key)
    LimitCounter.objects.select_for_update().filter(pk=counter.pk).first()


def recent(*, action: str, keys: Iterable[str], window_s: int) -> dict[str, list[datetime]]:
    """The times of the uses of `action` counted for each of `keys` within the last `window_s`
    seconds, oldest first (a key with none is absent), in one query."""
    since = timezone.now() - timedelta(seconds=window_s)
    found: dict[str, list[datetime]] = {}
    for key, at in (LimitUse.objects.filter(counter__action=action, counter__key__in=list(keys), at__gt=since)
                    .order_by("at").values_list("counter__key", "at")):
        found.setdefault(key, []).append(at)
    return found


def free_at(uses: list[datetime], *, limit: int, window_s: int) -> datetime | None:
    """When `uses` (the times counted in the window, oldest first) leave room for one more under
    `limit`: None when they do now (or never: a limit of 0), else when enough of the oldest have
    left the window."""
    if len(uses) < limit or limit <= 0:
        return None
    return uses[len(uses) - limit] + timedelta(seconds=window_s)
