"""Where bot archives live: Django's default storage, which is private (no public URL).

Archives are written under `versions/<bot id>/<version number>-<sha256 prefix>.zip` and only
ever read back by the validation task, the match runner and the owner-only source views.
"""

from __future__ import annotations

from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, default_storage

from armada_web.bots.models import BotVersion


class PrivateFileStorage(FileSystemStorage):
    """A folder outside every served path; asking for a file's URL is an error, not a link."""

    def url(self, name: str | None) -> str:
        raise ValueError("private storage has no URLs: send files through a view that checks the owner")


def archive_name(version: BotVersion) -> str:
    return f"versions/{version.bot_id}/{version.number}-{version.sha256[:16]}.zip"


def save_archive(version: BotVersion, data: bytes) -> str:
    """Store the archive; returns the name the storage chose."""
    return default_storage.save(archive_name(version), ContentFile(data))


def read_archive(version: BotVersion) -> bytes:
    with default_storage.open(str(version.archive.name), "rb") as handle:
        return handle.read()


def open_archive(version: BotVersion):  # type: ignore[no-untyped-def]
    """The archive as an open file, or None when the version has none (deleted, or lost from storage)."""
    if not version.archive.name:
        return None
    try:
        return version.archive.storage.open(version.archive.name, "rb")
    except (FileNotFoundError, OSError):
        return None
