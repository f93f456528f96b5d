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

import codecs
import hashlib
import io
import math
import os
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.conf import settings

from armada.archive import add_entry, max_archive_bytes, normalised_writer
from armada.botspec import ENTRY, BotSpecError, UnpackedTooLarge, ZipLimits, check_zip, find_entry_dir, open_zip
from armada.cli.botinfo import INFO_FILE, named_game
from armada.sizes import with_bytes
from armada_web.web.errors import Invalid, TooLarge
from armada_web.web.inputs import ENVELOPE_BYTES

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
#: Bytes read or written at a time: nothing of an upload is held whole.
CHUNK = 1024 * 1024
#: Where a model should go when it is too large (docs/bots-environment.md, "Model files").
SHRINK_HINT = "shrink it: export the model to ONNX, quantise its weights (float16 or int8), leave training data out"


class UploadError(Invalid):
    """The upload is refused; the message says why (shown as is on the page and in the API)."""


@dataclass(frozen=True)
class Bundle:
    """An accepted upload: the normalised archive (a temporary file, at its start), its sha256 and
    size, how many files and bytes it had. `close()` deletes the file."""

    file: IO[bytes]
    sha256: str
    size: int
    files: int
    uploaded_bytes: int

    @property
    def archive(self) -> bytes:
        """The whole archive in memory: for small ones only (a starter bot, tests)."""
        self.file.seek(0)
        data = self.file.read()
        self.file.seek(0)
        return data

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> Bundle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def site_limits(game: str | None = None) -> ZipLimits:
    """What an uploaded zip of `game` may be (None: the largest of any game); a stored archive is
    checked against `stored_limits`."""
    config = settings.ARMADA
    upload, unpacked = config.upload_limit(game)
    return ZipLimits(max_zip_bytes=upload, max_entries=config.upload_max_files, max_uncompressed_bytes=unpacked)


def stored_limits() -> ZipLimits:
    """What an archive the site wrote (a stored version) is checked against when it is unpacked or
    read, and at upload before it is stored: the entries and unpacked bytes of any game, an archive
    size that those imply (`max_archive_bytes`), no compression ratio (the site's own deflate packs
    zeros 1000 to 1; `_declared` holds the real bytes to the declared ones, whose total is bounded),
    and its names held to the rule of the day it was stored (`plain_names` is the upload's check)."""
    config = settings.ARMADA
    unpacked = config.upload_limit()[1]
    entries = config.upload_max_files
    return ZipLimits(max_zip_bytes=max_archive_bytes(files=entries, unpacked=unpacked), max_entries=entries,
                     max_uncompressed_bytes=unpacked, max_ratio=None, plain_names=False)


def too_large(size: int, limit: int) -> str:
    """The refusal of an upload of `size` bytes past `limit`, with both sizes and how to shrink it."""
    return (f"upload too large: {with_bytes(size)}; the limit is {with_bytes(limit)}: {SHRINK_HINT} "
            "(see /docs/bots-environment/)")


def check_request_size(*, content_length: object, game: str | None = None) -> None:
    """Refuse a request body far larger than an upload of `game` may be, before it is read (TooLarge)."""
    try:
        length = int(str(content_length or 0))
    except ValueError:
        return
    limit = settings.ARMADA.upload_limit(game)[0]
    if length > limit + ENVELOPE_BYTES:
        raise TooLarge(too_large(length, limit).replace("upload too large", "upload too large (the request)", 1))


def _size_of(handle: IO[bytes]) -> int:
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(0)
    return size


def check_upload(*, name: str, data: bytes | IO[bytes], game: str | None = None) -> Bundle:
    """The stored form of an upload of `game` named `name` holding `data` (bytes, or a seekable
    binary file read in chunks, never whole); raises UploadError, past the size limit before
    anything is read."""
    handle: IO[bytes] = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
    size = _size_of(handle)
    if not size:
        raise UploadError("the uploaded file is empty")
    limits = site_limits(game)
    if size > limits.max_zip_bytes:
        raise UploadError(too_large(size, limits.max_zip_bytes))
    head = handle.read(4)
    handle.seek(0)
    out = tempfile.TemporaryFile(prefix="armada-upload-")  # noqa: SIM115 (the Bundle owns it)
    try:
        with normalised_writer(out) as writer:
            if head.startswith(ZIP_MAGIC) or name.lower().endswith(".zip"):
                files = _zip_files(handle, size, limits, writer)
            elif name.lower().endswith(".py"):
                add_entry(writer, ENTRY, size, _checked_chunks(_shown(name), _chunks(handle), python=True))
                files = 1
            else:
                raise UploadError(f"{_shown(name)} is neither a zip nor a .py file")
        _check_stored(out)
        if game is not None:
            _check_game(out, game)
        return Bundle(out, _sha256(out), _size_of(out), files, size)
    except BaseException:
        out.close()
        raise


def _check_stored(out: IO[bytes]) -> None:
    """Check the normalised archive as `unpack` will (`stored_limits`): an accepted upload always
    unpacks. Never fails unless the upload's checks and these disagree (UploadError then)."""
    size = _size_of(out)
    try:
        with open_zip(out, size, stored_limits()) as archive:
            check_zip(archive, size, stored_limits())
    except (BotSpecError, zipfile.BadZipFile) as exc:
        raise UploadError(f"the archive made of the upload would not unpack ({exc})") from None
    finally:
        out.seek(0)


#: The most of an archive's armada.json (`armada new` writes it beside main.py, naming the bot's game) read.
INFO_MAX_BYTES = 64 * 1024


def _check_game(out: IO[bytes], game: str) -> None:
    """Refuse a normalised archive whose armada.json names another game than `game`, the bot's: its
    code would only fail the validation game, with a crash whose cause is in the log alone (an audit
    of bad input: `armada submit` refuses it, the API and the upload page took it). An archive without
    the file, or with one that names no known game, is the validation game's to judge."""
    try:
        with zipfile.ZipFile(out) as archive:
            info = next((i for i in archive.infolist() if i.filename == INFO_FILE), None)
            if info is None or info.file_size > INFO_MAX_BYTES:
                return
            named = named_game(archive.read(info))
    except zipfile.BadZipFile:
        return
    finally:
        out.seek(0)
    if named is not None and named != game:
        raise UploadError(f"its {INFO_FILE} says it is a {named} bot, but this bot plays {game}: its code would "
                          f"fail the validation game; upload it to a {named} bot (or correct {INFO_FILE} if it "
                          f"plays {game})")


def _chunks(handle: IO[bytes], limit: int | None = None) -> Iterator[bytes]:
    """`handle`'s bytes in chunks (at most `limit` of them)."""
    left = limit
    while left is None or left > 0:
        chunk = handle.read(CHUNK if left is None else min(CHUNK, left))
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
        yield chunk


def _sha256(handle: IO[bytes]) -> str:
    handle.seek(0)
    digest = hashlib.sha256()
    for chunk in _chunks(handle):
        digest.update(chunk)
    handle.seek(0)
    return digest.hexdigest()


def _shown(name: str) -> str:
    """A file name for a message: its last part, at most 80 characters."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1] or "the file"
    return base if len(base) <= 80 else base[:77] + "..."


def _entry_shown(path: str) -> str:
    """A zip entry's path for a message: whole, so that `lib/x.py` is told from `x.py` (the last 80
    characters of a longer one)."""
    return path if len(path) <= 80 else "..." + path[-77:]


def _checked_chunks(shown: str, chunks: Iterator[bytes], python: bool) -> Iterator[bytes]:
    """`chunks` as they are; for Python source, refused unless it is UTF-8 text without NUL bytes.
    `shown` names the file in a refusal."""
    if not python:
        yield from chunks
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    seen = 0
    for chunk in chunks:
        if b"\x00" in chunk:
            raise UploadError(f"{shown} is not text (it holds NUL bytes)")
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            raise UploadError(f"{shown} is not UTF-8 text (byte {seen + exc.start}); save it as UTF-8") from None
        seen += len(chunk)
        yield chunk
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise UploadError(f"{shown} is not UTF-8 text (it ends inside a character); save it as UTF-8") from None


def _zip_files(handle: IO[bytes], size: int, limits: ZipLimits, writer: zipfile.ZipFile) -> int:
    """Write the files of a bot zip, relative to the folder holding main.py, into `writer` (sorted,
    streamed, real bytes counted: headers can lie); returns how many; raises UploadError."""
    try:
        with open_zip(handle, size, limits) as archive:
            members = check_zip(archive, size, limits)
            top = find_entry_dir(members)
            files = sorted(("/".join(parts[len(top):]), info) for info, parts in members if not info.is_dir())
            budget = limits.max_uncompressed_bytes
            for rel, info in files:
                with archive.open(info) as src:
                    content = _declared(info, _chunks(src))
                    checked = _checked_chunks(_entry_shown(rel), content, rel.endswith(".py"))
                    add_entry(writer, rel, info.file_size, checked)
                budget -= info.file_size
                if budget < 0:
                    raise UploadError(f"zip too large when extracted (limit {limits.max_uncompressed_bytes} bytes)")
    except UnpackedTooLarge as exc:
        raise UploadError(f"{exc}: {SHRINK_HINT} (see /docs/bots-environment/#model-files)") from None
    except BotSpecError as exc:
        raise UploadError(str(exc)) from None
    except zipfile.BadZipFile as exc:
        raise UploadError(f"not a valid zip file ({exc})") from None
    except (RuntimeError, NotImplementedError, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        raise UploadError(f"cannot read the zip ({exc})") from None
    return len(files)


def _declared(info: zipfile.ZipInfo, chunks: Iterator[bytes]) -> Iterator[bytes]:
    """`chunks`, refused as soon as they pass the size the entry declares."""
    seen = 0
    for chunk in chunks:
        seen += len(chunk)
        if seen > info.file_size:
            raise UploadError(f"zip entry {info.filename!r} extracts to more than it declares")
        yield chunk
    if seen != info.file_size:
        raise UploadError(f"zip entry {info.filename!r} extracts to less than it declares")


def unpack(*, archive: bytes | IO[bytes], dest: str, mode: int = 0o644) -> int:
    """Write a stored (normalised, already checked) archive, bytes or a seekable file, into folder
    `dest` for the sandbox, in chunks; returns the bytes written.

    Files get `mode` (0644; the cache of unpacked versions: 0444) and folders 0755 so the sandbox
    user can read them; the caller makes folders read-only when it wants them so.
    """
    root = Path(dest)
    handle: IO[bytes] = io.BytesIO(archive) if isinstance(archive, bytes | bytearray) else archive
    written = 0
    size = _size_of(handle)
    with open_zip(handle, size, stored_limits()) as src:
        for info, parts in check_zip(src, size, stored_limits()):
            target = root.joinpath(*parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with src.open(info) as entry, open(target, "xb") as out:
                for chunk in _declared(info, _chunks(entry)):
                    out.write(chunk)
                    written += len(chunk)
            os.chmod(target, mode)
    for folder, dirs, _files in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)  # noqa: S103 (bot code, read by the sandbox uid)
    os.chmod(root, 0o755)  # noqa: S103
    return written


def read_files(*, archive: bytes | IO[bytes], suffix: str = "") -> dict[str, bytes]:
    """The files of a stored archive (bytes, or a seekable binary file) whose path ends with `suffix`,
    in memory by path (`a/b.py`): for reading the code (the integrity checks), never for running it."""
    return read_bounded(archive=archive, suffix=suffix).files


@dataclass(frozen=True)
class Bounded:
    """What `read_bounded` read: the files by path, and the paths it cut or left out."""

    files: dict[str, bytes]
    unread: list[str]


def read_bounded(*, archive: bytes | IO[bytes], suffix: str = "", budget: int | None = None,
                 file_budget: int | None = None, first: tuple[str, ...] = ()) -> Bounded:
    """`read_files` within bounds: at most `file_budget` bytes of a file (the rest cut) and
    `budget` in all, the paths of `first` first, then the smallest files; what is cut or left
    out is named in `unread` (a file of megabytes cannot make its reader hold them)."""
    handle: IO[bytes] = io.BytesIO(archive) if isinstance(archive, bytes | bytearray) else archive
    size = _size_of(handle)
    with open_zip(handle, size, stored_limits()) as src:
        members = [(info, "/".join(parts)) for info, parts in check_zip(src, size, stored_limits())
                   if not info.is_dir() and "/".join(parts).endswith(suffix)]
        members.sort(key=lambda member: (member[1] not in first, member[0].file_size, member[1]))
        left = math.inf if budget is None else budget
        read: dict[str, bytes] = {}
        unread: list[str] = []
        for info, path in members:
            wanted = min(left, math.inf if file_budget is None else file_budget)
            if wanted <= 0:
                unread.append(path)
                continue
            with src.open(info) as member:
                read[path] = member.read(-1 if math.isinf(wanted) else int(wanted))
            left -= len(read[path])
            if len(read[path]) < info.file_size:
                unread.append(path)
        return Bounded(read, sorted(unread))
