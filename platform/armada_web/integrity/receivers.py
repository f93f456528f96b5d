"""What the integrity checks do on the lower apps' signals (connected in IntegrityConfig.ready()).

- A version's validation ended (valid, invalid or error), after its commit: its code is
  fingerprinted (`fingerprints.fingerprint_version`; a version whose archive cannot be read is
  caught up later by `fingerprints.fingerprint_missing`).
"""

from __future__ import annotations

from typing import Any

from armada_web.bots.models import BotVersion
from armada_web.bots.signals import validation_finished
from armada_web.integrity.fingerprints import fingerprint_version


def fingerprint_validated(sender: Any, version: BotVersion, **_: Any) -> None:
    fingerprint_version(version=version)


def connect() -> None:
    validation_finished.connect(fingerprint_validated, sender=BotVersion, dispatch_uid="integrity.fingerprint")
