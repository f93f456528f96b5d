"""Fingerprints kept in the database: a version's sources read from private storage and
fingerprinted (`integrity.logic.fingerprints`) when its validation ends, and every version that
lacks one (or has one of an older scheme) caught up incrementally: a second catch-up finds
nothing to do and reads no source."""

from __future__ import annotations

import logging
import multiprocessing
import os
import zipfile
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from armada.botspec import ENTRY
from armada_web.bots.models import BotVersion
from armada_web.integrity.logic import fingerprints as fingerprints_logic
from armada_web.integrity.models import Fingerprint
from armada_web.storage.archives import read_bounded

log = logging.getLogger(__name__)
#: Versions fingerprinted per database round trip when catching up.
BATCH = 200
#: Versions waiting from which the catching up tokenizes in several processes.
POOL_FROM = 400


#: The bytes read of each of a version's .py files (the rest is cut): tokenizing holds about 160
#: times a source's size in memory, one file at a time.
SOURCE_FILE_BUDGET = 256 * 1024
#: The bytes read of its .py files in all (about five seconds of tokenizing): main.py first, then
#: the smallest files. What is cut or left out is kept (`Fingerprint.unread`) and the report lists
#: such versions: padding a bot with megabytes of Python is how copied code could hide past it.
SOURCE_BUDGET = 2 * 1024 * 1024


def read_sources(version: BotVersion) -> tuple[dict[str, str], list[str]] | None:
    """The version's Python sources by path (within SOURCE_FILE_BUDGET and SOURCE_BUDGET) and the
    paths cut or left out, or None when its archive is gone or unreadable (deleted, pruned, or the
    storage is down: logged)."""
    if not version.archive.name:
        return None
    try:
        with version.archive.storage.open(version.archive.name, "rb") as handle:
            found = read_bounded(archive=handle, suffix=".py", budget=SOURCE_BUDGET,
                                 file_budget=SOURCE_FILE_BUDGET, first=(ENTRY,))
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        log.warning("the sources of version %s could not be read (%s)", version.pk, exc.__class__.__name__)
        return None
    return {path: data.decode("utf-8", errors="replace") for path, data in found.files.items()}, found.unread


def sources(version: BotVersion) -> dict[str, str] | None:
    """`read_sources`' files alone."""
    found = read_sources(version)
    return None if found is None else found[0]


def fingerprint_version(*, version: BotVersion) -> Fingerprint | None:
    """Fingerprint the version's sources and keep it (replacing an older one); None when its
    sources cannot be read (`fingerprint_missing` tries again later)."""
    read = read_sources(version)
    if read is None:
        return None
    files, unread = read
    row, _created = Fingerprint.objects.update_or_create(version=version, defaults=_columns(
        fingerprints_logic.fingerprint(files), unread))
    return row


def _columns(found: fingerprints_logic.Fingerprint, unread: list[str]) -> dict[str, Any]:
    hashes = found.hashes
    return {"hashes": fingerprints_logic.pack(hashes), "count": len(hashes), "tokens": found.tokens,
            "text_files": list(found.text_files), "unread": unread, "scheme": fingerprints_logic.SCHEME}


def fingerprint_missing(*, limit: int | None = None, workers: int | None = None) -> int:
    """Fingerprint the versions with an archive and no fingerprint of the current scheme (at
    most `limit`); returns how many were fingerprinted. The sources are read and the rows written
    here, BATCH at a time; the tokenizing is spread over `workers` processes (default: one per
    CPU, at most 4) once more than POOL_FROM versions are waiting, one process otherwise."""
    pending = (BotVersion.objects.exclude(archive="")
               .exclude(fingerprint__scheme=fingerprints_logic.SCHEME)
               .order_by("pk").values_list("pk", flat=True))
    todo = list(pending[:limit] if limit is not None else pending)
    if workers is None:
        workers = min(os.cpu_count() or 1, 4) if len(todo) > POOL_FROM else 1
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) if workers > 1 else None
    done = 0
    try:
        for start in range(0, len(todo), BATCH):
            read = [(version, read_sources(version)) for version in BotVersion.objects.filter(
                pk__in=todo[start:start + BATCH]).order_by("pk")]
            readable = [(version, found) for version, found in read if found is not None]
            texts = [files for _, (files, _unread) in readable]
            prints = (pool.map(fingerprints_logic.fingerprint, texts, chunksize=8) if pool is not None
                      else map(fingerprints_logic.fingerprint, texts))
            rows = [Fingerprint(version=version, **_columns(f, unread))
                    for (version, (_files, unread)), f in zip(readable, prints, strict=True)]
            Fingerprint.objects.bulk_create(rows, update_conflicts=True, unique_fields=["version"],
                                            update_fields=["hashes", "count", "tokens", "text_files", "unread",
                                                           "scheme", "computed_at"])
            done += len(rows)
    finally:
        if pool is not None:
            pool.shutdown()
    return done


def hashes_of(row: Fingerprint) -> list[int]:
    """A kept fingerprint's hashes."""
    return fingerprints_logic.unpack(bytes(row.hashes))
