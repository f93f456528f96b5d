"""The normalised bot zip: the one writer of what `armada submit` sends for a folder and of
the archive the site stores.

Entries are sorted by name, dated 1980-01-01, mode 0644 and deflated at level 6, so the same
files with the same contents always give the same bytes (and the same sha256). Checking what
goes in (names, sizes, links) is the caller's: `armada.botspec.check_zip` for a zip.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from typing import IO

#: Every entry's date: the earliest a zip can record.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
#: Every entry's mode: a regular file, rw-r--r--.
FILE_MODE = stat.S_IFREG | 0o644
#: zlib's level (6 is also zlib's default).
COMPRESS_LEVEL = 6
#: An entry of at least SAMPLE_BYTES whose first SAMPLE_BYTES deflate to more than STORE_ABOVE of
#: their size is stored as it is (model weights, already compressed files): deflating 100 MiB of
#: them costs seconds of the site's CPU for nothing. Decided by the contents alone, so still the
#: same bytes; smaller files (every source file) are always deflated, as before.
SAMPLE_BYTES = 256 * 1024
STORE_ABOVE = 0.9
#: What one entry adds to a normalised zip besides its bytes, at most: a local header (30) and a
#: central record (46), each with the name (at most `armada.botspec.MAX_PATH_BYTES`, 1024), and
#: room to spare.
ENTRY_OVERHEAD_BYTES = 4096


def normalised_zip(files: Mapping[str, bytes]) -> bytes:
    """A zip of `files` (name in the zip, "/"-separated -> contents), the same bytes for the same files."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for name in sorted(files):
            add_entry(out, name, len(files[name]), [files[name]])
    return buffer.getvalue()


def max_archive_bytes(*, files: int, unpacked: int) -> int:
    """The most a normalised zip of at most `files` files and `unpacked` bytes can be: every byte
    stored or deflated (deflate's worst case adds under 1/1024), each entry's headers, the end record.
    Whatever was uploaded, the stored archive is never larger."""
    return unpacked + unpacked // 1024 + files * ENTRY_OVERHEAD_BYTES + 22


def normalised_writer(target: IO[bytes]) -> zipfile.ZipFile:
    """A zip writer on seekable `target` for `add_entry` (add the entries sorted by name, then close
    it): the same bytes as `normalised_zip`, without holding any file whole."""
    return zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED)


def add_entry(out: zipfile.ZipFile, name: str, size: int, chunks: Iterable[bytes]) -> None:
    """Write entry `name` of `size` bytes, given as `chunks`, the normalised way (date, mode, level;
    stored when it does not compress, `STORE_ABOVE`). The size is set first, as `ZipFile.writestr`
    does, so the headers are the same whatever the chunks."""
    stream = iter(chunks)
    head = b""
    for chunk in stream:
        head += chunk
        if len(head) >= SAMPLE_BYTES:
            break
    sample = head[:SAMPLE_BYTES]
    packer = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15)
    stored = size >= SAMPLE_BYTES and len(packer.compress(sample) + packer.flush()) > STORE_ABOVE * len(sample)
    info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
    info.external_attr = FILE_MODE << 16
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    info.file_size = size
    setattr(info, "_compresslevel", None if stored else COMPRESS_LEVEL)  # noqa: B010 (writestr's compresslevel)
    with out.open(info, "w") as dest:
        dest.write(head)
        for chunk in stream:
            dest.write(chunk)
