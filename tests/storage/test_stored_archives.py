"""The stored archive is checked at upload with the limits it is unpacked with
(`archives.stored_limits`): whatever the upload check accepts unpacks, however the normalised
zip packs its files, and the stored archive is never larger than the unpacked limit implies."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from armada.archive import max_archive_bytes, normalised_zip
from armada.botspec import BotSpecError
from armada_web.storage import unpacked
from armada_web.storage.archives import check_upload, read_files, stored_limits, unpack
from armada_web.storage.unpacked import Source

MIB = 1024 * 1024
MAIN = b"print('hi')\n"


def zipped(entries: dict[str, bytes], compression: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_stored_model_of_zeros_that_the_site_deflates_still_unpacks(tmp_path: Path) -> None:
    """Uploaded stored (ratio 1), deflated by the site to about 20 KiB: no zip bomb at unpack."""
    upload = zipped({"main.py": MAIN, "model.bin": bytes(20 * MIB)}, zipfile.ZIP_STORED)
    with check_upload(name="bot.zip", data=upload, game="galaxy") as bundle:
        archive = bundle.archive
    assert len(archive) < MIB
    assert unpack(archive=archive, dest=str(tmp_path / "x")) == 20 * MIB + len(MAIN)
    assert read_files(archive=archive, suffix=".py") == {"main.py": MAIN}


def test_a_small_upload_stored_large_is_bounded_and_unpacks(tmp_path: Path, armada) -> None:
    """Noise first, then zeros: the site stores the file as it is (its start does not compress), so
    the archive is far larger than the upload, but never past `max_archive_bytes` of the limits,
    and it unpacks."""
    armada(upload_max_bytes=2 * MIB, unpacked_max_bytes=16 * MIB, upload_max_files=10)
    body = os.urandom(512 * 1024) + bytes(15 * MIB)
    upload = zipped({"main.py": MAIN, "model.bin": body}, zipfile.ZIP_DEFLATED)
    assert len(upload) < MIB
    with check_upload(name="bot.zip", data=upload, game="galaxy") as bundle:
        assert 15 * MIB < bundle.size <= max_archive_bytes(files=10, unpacked=16 * MIB)
        assert stored_limits().max_zip_bytes == max_archive_bytes(files=10, unpacked=16 * MIB)
        found = unpacked.entry(source=Source.of_bytes(bundle.archive), root=tmp_path / "cache", limit=1 << 30)
    assert (found.files / "model.bin").read_bytes() == body


def test_the_same_files_give_the_same_archive_whatever_the_upload(armada) -> None:
    files = {"main.py": MAIN, "model.bin": os.urandom(300 * 1024) + bytes(MIB), "zeros.bin": bytes(MIB)}
    archives = set()
    for compression in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        with check_upload(name="bot.zip", data=zipped(files, compression), game="galaxy") as bundle:
            archives.add(bundle.archive)
    assert archives == {normalised_zip(files)}


def test_a_stored_archive_past_what_the_limits_imply_is_refused(armada) -> None:
    armada(unpacked_max_bytes=MIB, upload_max_files=2)
    noise = normalised_zip({"main.py": MAIN, "model.bin": os.urandom(MIB // 2)})
    assert read_files(archive=noise, suffix=".py") == {"main.py": MAIN}
    too_many = normalised_zip({"main.py": MAIN, "a.bin": b"a", "b.bin": b"b"})
    with pytest.raises(BotSpecError, match="too many entries"):
        read_files(archive=too_many)
    too_large = normalised_zip({"main.py": MAIN, "model.bin": os.urandom(MIB + 1)})
    with pytest.raises(BotSpecError, match="zip too large"):
        read_files(archive=too_large)
