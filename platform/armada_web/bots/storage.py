"""Where bot archives live: Django's default storage, which is private (no public URL).

Archives are written under `versions/<bot id>/<version number>-<sha256 prefix>.zip` and only
ever read back by the validation task, the match runner and the owner-only source view.
"""

from __future__ import annotations

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from armada_web.bots.models import BotVersion


def archive_name(version: BotVersion) -> str:
    return f"versions/{version.bot_id}/{version.number}-{version.sha256[:16]}.zip"


def save_archive(version: BotVersion, data: bytes) -> str:
    """Store the archive; returns the name the storage chose."""
    return default_storage.save(archive_name(version), ContentFile(data))


def read_archive(version: BotVersion) -> bytes:
    with default_storage.open(version.archive.name, "rb") as handle:
        return handle.read()


def delete_archive(version: BotVersion) -> None:
    if version.archive.name:
        default_storage.delete(version.archive.name)
