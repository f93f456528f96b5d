"""The bot archive: checking an upload and turning it into the stored archive (wraps
`armada.botspec.check_zip`), and unpacking a stored one for the sandbox.

An upload is one `.py` file (stored as `main.py`) or a zip with `main.py` at its top or in
its single top folder. The SDK's checker refuses unsafe zips (absolute paths, `..`,
symlinks, encryption, bombs); the site adds its own stricter sizes and checks that every
`.py` is UTF-8 text. Nothing is extracted to disk: the accepted files are read into memory
(bounded) and written into a normalised zip (`armada.archive.normalised_zip`), so the
same files with the same contents always give the same bytes and the same sha256.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from armada.archive import normalised_zip
from armada.botspec import ENTRY, BotSpecError, ZipLimits, check_zip, find_entry_dir
from armada_web.web.errors import Invalid, TooLarge

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


#: Room for the multipart envelope around the file itself.
ENVELOPE_BYTES = 64 * 1024


class UploadError(Invalid):
    """The upload is refused; the message says why (shown as is on the page and in the API)."""


@dataclass(frozen=True)
class Bundle:
    """An accepted upload: the normalised archive, its sha256, how many files and bytes it had."""

    archive: bytes
    sha256: str
    files: int
    uploaded_bytes: int


def site_limits() -> ZipLimits:
    config = settings.ARMADA
    return ZipLimits(
        max_zip_bytes=config.upload_max_bytes,
        max_entries=config.upload_max_files,
        max_uncompressed_bytes=config.unpacked_max_bytes,
    )


def check_request_size(*, content_length: object) -> None:
    """Refuse a request body far larger than an upload may be, before it is read (TooLarge)."""
    try:
        length = int(str(content_length or 0))
    except ValueError:
        return
    limit = settings.ARMADA.upload_max_bytes
    if length > limit + ENVELOPE_BYTES:
        raise TooLarge(f"upload too large: {length} bytes sent (limit {limit} bytes)")


def check_upload(*, name: str, data: bytes) -> Bundle:
    """The stored form of an upload named `name` holding `data`; raises UploadError."""
    if not data:
        raise UploadError("the uploaded file is empty")
    limit = settings.ARMADA.upload_max_bytes
    if len(data) > limit:
        raise UploadError(f"upload too large: {len(data)} bytes (limit {limit} bytes)")
    lower = name.lower()
    if data.startswith(ZIP_MAGIC) or lower.endswith(".zip"):
        files = _zip_files(data)
    elif lower.endswith(".py"):
        _check_python(name, data)
        files = {ENTRY: data}
    else:
        raise UploadError(f"{_shown(name)} is neither a zip nor a .py file")
    return _bundle(files, len(data))


def _shown(name: str) -> str:
    """A file name for a message: its last part, at most 80 characters."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1] or "the file"
    return base if len(base) <= 80 else base[:77] + "..."


def _check_python(path: str, data: bytes) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadError(f"{_shown(path)} is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if b"\x00" in data:
        raise UploadError(f"{_shown(path)} is not text (it holds NUL bytes)")


def _zip_files(data: bytes) -> dict[str, bytes]:
    """The files of a bot zip, relative to the folder holding main.py; raises UploadError."""
    limits = site_limits()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = check_zip(archive, len(data), limits)
            top = find_entry_dir(members)
            budget = limits.max_uncompressed_bytes
            files: dict[str, bytes] = {}
            for info, parts in members:
                if info.is_dir():
                    continue
                with archive.open(info) as src:
                    content = src.read(info.file_size + 1)
                if len(content) > info.file_size:
                    raise UploadError(f"zip entry {info.filename!r} extracts to more than it declares")
                budget -= len(content)
                if budget < 0:
                    raise UploadError(f"zip too large when extracted (limit {limits.max_uncompressed_bytes} bytes)")
                rel = "/".join(parts[len(top):])
                if rel.endswith(".py"):
                    _check_python(rel, content)
                files[rel] = content
    except BotSpecError as exc:
        raise UploadError(str(exc)) from None
    except zipfile.BadZipFile as exc:
        raise UploadError(f"not a valid zip file ({exc})") from None
    except (RuntimeError, NotImplementedError, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        raise UploadError(f"cannot read the zip ({exc})") from None
    return files


def _bundle(files: dict[str, bytes], uploaded_bytes: int) -> Bundle:
    archive = normalised_zip(files)
    return Bundle(archive, hashlib.sha256(archive).hexdigest(), len(files), uploaded_bytes)


def unpack(*, archive: bytes, dest: str) -> None:
    """Write a stored (normalised, already checked) archive into folder `dest` for the sandbox.

    Files get mode 0644 and folders 0755 so the sandbox user can read them.
    """
    root = Path(dest)
    for parts, content in _stored_files(archive):
        target = root.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        os.chmod(target, 0o644)
    for folder, dirs, _files in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)  # noqa: S103 (bot code, read by the sandbox uid)
    os.chmod(root, 0o755)  # noqa: S103


def read_files(*, archive: bytes, suffix: str = "") -> dict[str, bytes]:
    """The files of a stored archive whose path ends with `suffix`, in memory by path (`a/b.py`):
    for reading the code (the integrity checks), never for running it."""
    return {"/".join(parts): content for parts, content in _stored_files(archive)
            if "/".join(parts).endswith(suffix)}


def _stored_files(archive: bytes) -> Iterator[tuple[list[str], bytes]]:
    """Each file of a stored archive (checked again on the way out) with its path's parts."""
    with zipfile.ZipFile(io.BytesIO(archive)) as src:
        members = check_zip(src, len(archive), site_limits())
        for info, parts in members:
            if not info.is_dir():
                yield parts, src.read(info)
