"""Shared accounts from the database: the sightings (accounts.sightings), e-mail addresses and
uploads read, grouped by `integrity.logic.accounts`, returned as findings of kind "accounts"
(subjects: usernames, sorted; docs/integrity.md, "Shared accounts").

Staff accounts (`is_staff` or `is_superuser`) are left out: they are the organisers', not
competitors, and sign in beside everyone (on the event's machines, from the players' desks), so
they would tie competitors to each other through themselves (docs/integrity.md).

The starter bots' archives (each game's `builtin:` starters, uploaded unchanged) are code everyone
may upload: they tie nobody. Sightings exist only for ARMADA_SIGHTINGS_KEEP_DAYS; older links are
gone, which a finding's evidence cannot show.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import timedelta

from django.contrib.auth.models import User
from django.db.models import Q
from django.db.models.functions import Coalesce

from armada.botspec import GAMES, builtin_names, starter_file
from armada_web.accounts.models import Sighting as SightingRow
from armada_web.bots.models import BotVersion
from armada_web.integrity.copies import scope
from armada_web.integrity.logic import accounts as logic
from armada_web.integrity.logic.findings import Finding, ranked
from armada_web.seasons.models import Season
from armada_web.storage.archives import UploadError, check_upload

KIND = "accounts"


@functools.lru_cache(maxsize=1)
def starter_hashes() -> frozenset[str]:
    """The archive hashes of every game's starter bots uploaded unchanged (as `main.py`)."""
    found = set()
    for game in GAMES:
        for name in builtin_names(game):
            try:
                found.add(check_upload(name="main.py", data=starter_file(name, game).read_bytes()).sha256)
            except (UploadError, OSError):
                continue
    return frozenset(found)


def _sightings(names: dict[int, str]) -> Iterator[logic.Sighting]:
    rows = SightingRow.objects.order_by().values_list("user_id", "address", "at", "kind")
    for user_id, address, at, kind in rows.iterator(chunk_size=10_000):
        if user_id in names:
            yield logic.Sighting(names[user_id], address, at, kind)


def _uploads(names: dict[int, str]) -> Iterator[logic.Upload]:
    """Each version as uploaded by the member who uploaded it (`uploaded_by`): in a shared team that
    is not always the bot's creator, who must not be tied for a teammate's upload (an organiser's
    trial: carol's upload to alice's team bot, copied by another account, named alice). A version
    from before uploaders were recorded counts as its bot's creator's, as it did."""
    rows = (BotVersion.objects.order_by().exclude(sha256="")
            .filter(Q(uploaded_by__isnull=False) | Q(bot__owner__isnull=False))
            .annotate(uploader=Coalesce("uploaded_by_id", "bot__owner_id"))
            .values_list("uploader", "sha256", "pk", "created", "bot__name", "number"))
    for user_id, sha256, pk, created, bot, number in rows.iterator(chunk_size=10_000):
        if user_id in names:
            yield logic.Upload(names[user_id], sha256, pk, created, f"{bot} v{number}")


def groups(*, window: timedelta = logic.WINDOW, crowd: int = logic.CROWD, ignored: int = logic.IGNORED,
           threshold: float = logic.THRESHOLD) -> list[logic.Group]:
    """Every group of linked competitors' accounts on the site (staff left out: see the module),
    strongest first (weak ones below `threshold` too)."""
    accounts = list(User.objects.filter(is_staff=False, is_superuser=False).values_list("pk", "username", "email"))
    names = {pk: username for pk, username, _ in accounts}
    links = [*logic.email_links({username: email for _, username, email in accounts}),
             *logic.upload_links(_uploads(names), common=starter_hashes(), crowd=crowd),
             *logic.address_links(_sightings(names), window=window, crowd=crowd, ignored=ignored)]
    return logic.group_accounts(links, threshold=threshold)


def shared_accounts(*, season: Season | None = None, threshold: float = logic.THRESHOLD,
                    weak: bool = False, window: timedelta = logic.WINDOW, crowd: int = logic.CROWD) -> list[Finding]:
    """The groups of linked accounts as findings, strongest first: those at least `threshold`
    strong (and, with `weak`, the weaker ones too); with a `season`, only the groups holding an
    account with a bot entered in it (before the close, a playing bot of its game, as the other
    checks' `copies.scope`: an organiser's trial checked an open season and saw no shared accounts)."""
    found = groups(window=window, crowd=crowd, threshold=threshold)
    if season is not None:
        if season.entries.exists():
            owners = User.objects.filter(pk__in=season.entries.values("owner_id"))
        else:
            owners = User.objects.filter(pk__in=BotVersion.objects.filter(pk__in=scope(season)).values("bot__owner_id"))
        entrants = set(owners.values_list("username", flat=True))
        found = [g for g in found if entrants.intersection(g.users)]
    return ranked([finding(g) for g in found if weak or g.score >= threshold])


def finding(group: logic.Group) -> Finding:
    """A group as a finding: its links are the evidence."""
    links = [{"users": list(link.users), "kind": link.kind, "strength": link.strength, "detail": link.detail}
             for link in group.links]
    return Finding(KIND, group.users, group.score, group.reason, {"links": links})
