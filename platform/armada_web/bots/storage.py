"""Where bot archives live: Django's default storage, which is private (armada_web.storage.objectstore:
a local folder or an S3-compatible bucket, no public URL).

Archives are written under `versions/<bot id>/<version number>-<sha256 prefix>.zip` and only
ever read back by the validation task, the match runner and the owner-only source views. The
validation game's replay goes beside its archive (`<version number>-validation-a<attempt>-<random>.json.gz`),
served to the owner and staff only.
"""

from __future__ import annotations

import contextlib
import secrets
from typing import IO, Any

from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage

from armada.replay import replay_gzip
from armada_web.bots.models import BotVersion
from armada_web.storage.objectstore import unavailable
from armada_web.storage.unpacked import Source


def archive_name(version: BotVersion) -> str:
    """Where the version's archive is stored: by bot, number and hash (a new upload, a new name)."""
    return f"versions/{version.bot_id}/{version.number}-{version.sha256[:16]}.zip"


def download_name(version: BotVersion) -> str:
    """The file name a download of the version's archive gets: `<bot>-v<number>.zip`."""
    return f"{version.bot.name}-v{version.number}.zip"


def validation_replay_download_name(version: BotVersion) -> str:
    """The file name a download of the version's validation replay gets (and the page's commands
    read): `<bot>-v<number>-validation.json.gz`, as the page names the version, not by its API id."""
    return f"{version.bot.name}-v{version.number}-validation.json.gz"


def save_archive(version: BotVersion, data: bytes | IO[bytes]) -> str:
    """Store the archive (bytes, or a file the storage reads in chunks); returns the name the storage chose."""
    content = ContentFile(data) if isinstance(data, bytes) else File(data, name="archive.zip")
    return default_storage.save(archive_name(version), content)


def source(version: BotVersion) -> Source:
    """The version's archive for the cache of unpacked versions: opened (from storage) on a miss only."""
    name = str(version.archive.name)
    return Source(version.sha256, lambda: default_storage.open(name, "rb"))


def save_validation_replay(version: BotVersion, attempt: int, replay: dict[str, Any]) -> str:
    """Store the replay of a version's validation game (gzip replay v1, as the SDK writes it); returns its name,
    `versions/<bot id>/<version number>-validation-a<attempt>-<random>.json.gz` (a validation run again
    by staff starts at attempt 1 again, and object storage overwrites a name: the random part keeps the
    replay the row still names from being overwritten, then deleted as a superseded attempt's)."""
    name = f"versions/{version.bot_id}/{version.number}-validation-a{attempt}-{secrets.token_hex(4)}.json.gz"
    return default_storage.save(name, ContentFile(replay_gzip(replay)))


def read_validation_replay(version: BotVersion) -> bytes | None:
    """The validation game's replay (gzip bytes), or None when the version has none (validated before
    replays were kept, never played, or deleted); Unavailable when the storage does not answer."""
    if not version.replay.name:
        return None
    try:
        with default_storage.open(version.replay.name, "rb") as handle:
            return bytes(handle.read())
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unavailable(exc) from None


def delete_quietly(name: str) -> None:
    """Delete a stored file (best effort: one left behind is an orphan that retention removes)."""
    with contextlib.suppress(OSError):
        default_storage.delete(name)


def read_archive(version: BotVersion) -> bytes:
    """The version's whole archive (a validation's or a match's small read; `open_archive` streams)."""
    with default_storage.open(str(version.archive.name), "rb") as handle:
        return handle.read()


def open_archive(version: BotVersion) -> File[Any] | None:
    """The archive as an open file, or None when the version has none (deleted, or lost from
    storage); Unavailable when the storage does not answer."""
    if not version.archive.name:
        return None
    try:
        return version.archive.storage.open(version.archive.name, "rb")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unavailable(exc) from None
