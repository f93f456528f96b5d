"""Fingerprints kept in the database: a version's sources read from private storage and
fingerprinted (`integrity.logic.fingerprints`) when its validation ends, and every version that
lacks one (or has one of an older scheme) caught up incrementally."""

from __future__ import annotations

import logging
import zipfile

from armada_web.bots import storage as bot_storage
from armada_web.bots.models import BotVersion
from armada_web.integrity.logic import fingerprints as fingerprints_logic
from armada_web.integrity.models import Fingerprint
from armada_web.storage.archives import read_files

log = logging.getLogger(__name__)
#: Versions fingerprinted per database round trip when catching up.
BATCH = 200


def sources(version: BotVersion) -> dict[str, str] | None:
    """The version's Python sources by path, or None when its archive is gone or unreadable
    (deleted, pruned, or the storage is down: logged)."""
    if not version.archive.name:
        return None
    try:
        files = read_files(archive=bot_storage.read_archive(version), suffix=".py")
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        log.warning("the sources of version %s could not be read (%s)", version.pk, exc.__class__.__name__)
        return None
    return {path: data.decode("utf-8", errors="replace") for path, data in files.items()}


def fingerprint_version(*, version: BotVersion) -> Fingerprint | None:
    """Fingerprint the version's sources and keep it (replacing an older one); None when its
    sources cannot be read (`fingerprint_missing` tries again later)."""
    files = sources(version)
    if files is None:
        return None
    found = fingerprints_logic.fingerprint(files)
    hashes = found.hashes
    row, _created = Fingerprint.objects.update_or_create(version=version, defaults={
        "hashes": fingerprints_logic.pack(hashes), "count": len(hashes), "tokens": found.tokens,
        "text_files": list(found.text_files), "scheme": fingerprints_logic.SCHEME,
    })
    return row


def fingerprint_missing(*, limit: int | None = None) -> int:
    """Fingerprint the versions with an archive and no fingerprint of the current scheme (at
    most `limit`); returns how many were fingerprinted."""
    pending = (BotVersion.objects.exclude(archive="")
               .exclude(fingerprint__scheme=fingerprints_logic.SCHEME)
               .order_by("pk").values_list("pk", flat=True))
    done = 0
    last = 0
    while limit is None or done < limit:
        ids = list(pending.filter(pk__gt=last)[:BATCH])
        if not ids:
            break
        for version in BotVersion.objects.filter(pk__in=ids).order_by("pk"):
            if limit is not None and done >= limit:
                break
            if fingerprint_version(version=version) is not None:
                done += 1
        last = ids[-1]
    return done


def hashes_of(row: Fingerprint) -> list[int]:
    """A kept fingerprint's hashes."""
    return fingerprints_logic.unpack(bytes(row.hashes))
