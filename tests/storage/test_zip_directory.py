"""A zip's central directory is measured from its end records before `zipfile` reads it: an
upload declaring (or holding) far more entries than a bot may have is refused at once, its
directory never read whole (`armada.botspec.check_directory`)."""

from __future__ import annotations

import io
import struct
import time
import tracemalloc
import zlib

import pytest

from armada.botspec import BotSpecError, check_directory, extract_zip
from armada_web.storage.archives import UploadError, check_upload, site_limits

MAIN = b"print('hi')\n"


def many_records(records: int, declared: int) -> bytes:
    """A zip of one file, `main.py`, whose central directory lists it `records` times and whose
    end record says `declared` entries: built in one go, as an attacker would."""
    name = b"main.py"
    crc = zlib.crc32(MAIN)
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 33, crc, len(MAIN), len(MAIN), len(name), 0)
    record = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 33, crc, len(MAIN), len(MAIN),
                         len(name), 0, 0, 0, 0, 0o100644 << 16, 0) + name
    head = local + name + MAIN
    directory = record * records
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, min(declared, 0xFFFF), min(declared, 0xFFFF),
                      len(directory), len(head), 0)
    return head + directory + end


def refused_cheaply(data: bytes, match: str) -> None:
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(UploadError, match=match):
            check_upload(name="bot.zip", data=io.BytesIO(data), game="galaxy")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 2
    assert peak < 2 * 1024 * 1024 < len(data) / 10, peak  # nothing like the directory's size


def test_a_directory_far_past_the_entry_limit_is_refused_before_it_is_read():
    data = many_records(400_000, declared=1)  # 21 MiB of directory behind an end record saying 1 entry
    refused_cheaply(data, r"central directory is too large: \d+ bytes for at most 200 entries")


def test_a_declared_count_past_the_limit_is_refused_from_the_end_record():
    refused_cheaply(many_records(400_000, declared=400_000), r"too many entries: 65535 \(limit 200\)")
    with pytest.raises(UploadError, match=r"too many entries: 201 \(limit 200\)"):
        check_upload(name="bot.zip", data=many_records(201, declared=201), game="galaxy")


def test_records_past_the_limit_in_a_small_directory_are_counted():
    with pytest.raises(UploadError, match="more than 200 in its central directory"):
        check_upload(name="bot.zip", data=many_records(201, declared=1), game="galaxy")


def test_a_zip64_end_record_is_read_as_zipfile_reads_it():
    data = many_records(1, declared=1)
    at = data.rfind(b"PK\x05\x06")
    directory_size, directory_at = struct.unpack_from("<2L", data, at + 12)
    end64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, 10**6, 10**6, directory_size, directory_at)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, at, 1)
    zip64 = data[:at] + end64 + locator + data[at:]
    with pytest.raises(BotSpecError, match=r"too many entries: 1000000 \(limit 200\)"):
        check_directory(io.BytesIO(zip64), len(zip64), site_limits("galaxy"))


def test_an_ordinary_zip_passes_and_the_cli_refuses_the_same(tmp_path):
    with check_upload(name="bot.zip", data=many_records(1, declared=1), game="galaxy") as bundle:
        assert bundle.files == 1
    path = tmp_path / "bot.zip"
    path.write_bytes(many_records(1001, declared=1))
    with pytest.raises(BotSpecError, match="more than 1000 in its central directory"):
        extract_zip(path)


def zip64_of(data: bytes, entries: int, extensible: bytes = b"", declared_shift: int = 0) -> bytes:
    """`data` (a zip) with a zip64 end record saying `entries` (and carrying `extensible` data) and
    its locator, pointing `declared_shift` bytes off the record, before the plain end record."""
    at = data.rfind(b"PK\x05\x06")
    directory_size, directory_at = struct.unpack_from("<2L", data, at + 12)
    end64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44 + len(extensible), 45, 45, 0, 0, entries, entries,
                        directory_size, directory_at) + extensible
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, at + declared_shift, 1)
    return data[:at] + end64 + locator + data[at:]


def test_a_plain_zip64_zip_passes():
    data = zip64_of(many_records(1, declared=1), entries=1)
    check_directory(io.BytesIO(data), len(data), site_limits("galaxy"))
    with check_upload(name="bot.zip", data=data, game="galaxy") as bundle:
        assert bundle.files == 1


@pytest.mark.parametrize(("extensible", "shift"), [(b"\0" * 100, 0), (b"", 8)])
def test_a_zip64_record_other_pythons_read_elsewhere_is_refused(extensible, shift):
    # CPython's fix for CVE-2025-8291 reads a zip64 record with extensible data (or one its locator
    # puts elsewhere) from the locator's offset: 50,000 records behind a record saying 1 entry would
    # pass a check reading only the record before the locator, then be read whole. Refused.
    data = zip64_of(many_records(1, declared=1), entries=1, extensible=extensible, declared_shift=shift)
    with pytest.raises(BotSpecError, match="zip64 end record is not the plain one"):
        check_directory(io.BytesIO(data), len(data), site_limits("galaxy"))
