"""What the integrity checks do on the lower apps' signals (connected in IntegrityConfig.ready()).

- A version's validation ended (valid, invalid or error), after its commit: its code is
  fingerprinted (`fingerprints.fingerprint_version`; a version whose archive cannot be read is
  caught up later by `fingerprints.fingerprint_missing`); a valid one is also sent to be probed
  for its behaviour signature (`tasks.queue_probe` -> `behaviour.probe_version`, on the
  validation queue; caught up when a season's checks run).
- A season closed (its entries frozen): once that commits, its checks are sent to the periodic
  queue (`tasks.queue_checks` -> `checks.run_checks`), so the report is ready for staff before
  the results are final.
- A season finished (its final standings written): its checks are sent again the same way, since
  its finals were played after the close's run (a thrown finals game is seen only now).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import pre_delete

from armada_web.bots.models import BotVersion, VersionStatus
from armada_web.bots.signals import validation_finished
from armada_web.integrity import actions
from armada_web.integrity.fingerprints import fingerprint_version
from armada_web.integrity.tasks import queue_checks, queue_probe
from armada_web.seasons.models import Season
from armada_web.seasons.signals import season_closed, season_finished


def fingerprint_validated(sender: Any, version: BotVersion, **_: Any) -> None:
    fingerprint_version(version=version)


def probe_validated(sender: Any, version: BotVersion, status: str = "", **_: Any) -> None:
    if status == VersionStatus.VALID:
        queue_probe(version.pk)


def check_season(sender: Any, season: Season, **_: Any) -> None:
    """A season closed or finished: its checks run once that commits."""
    season_id = season.pk
    transaction.on_commit(lambda: queue_checks(season_id), robust=True)


def forget_deleted_member(sender: Any, instance: Any, **_: Any) -> None:
    actions.forget_member(user=instance)


def connect() -> None:
    validation_finished.connect(fingerprint_validated, sender=BotVersion, dispatch_uid="integrity.fingerprint")
    validation_finished.connect(probe_validated, sender=BotVersion, dispatch_uid="integrity.probe")
    season_closed.connect(check_season, sender=Season, dispatch_uid="integrity.season_closed")
    season_finished.connect(check_season, sender=Season, dispatch_uid="integrity.season_finished")
    pre_delete.connect(forget_deleted_member, sender=settings.AUTH_USER_MODEL, dispatch_uid="integrity.forget_member")
