"""Versions with model files (issue 25): per-game size limits, the zip checks at 100 MiB, refusals
past the limit that store nothing, and uploads streamed from the request's temporary file."""

from __future__ import annotations

import hashlib
import io
import os
import struct
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from armada.archive import normalised_zip
from armada.botspec import BotSpecError, check_zip
from armada_web.runtime.config import load
from armada_web.storage.archives import site_limits

pytestmark = pytest.mark.django_db

MIB = 1024 * 1024
MAIN = b"import os\nprint(os.path.getsize('model.onnx'))\n"


def stored_zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def declaring(data: bytes, name: str, size: int, compressed: int | None = None) -> bytes:
    """`data` (a zip) whose central directory says entry `name` unpacks to `size` bytes (from
    `compressed` bytes, when given): what the checks before unpacking read."""
    out = bytearray(data)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", out, at + 28)[0]
        if out[at + 46:at + 46 + length].decode() == name:
            struct.pack_into("<I", out, at + 24, size)
            if compressed is not None:
                struct.pack_into("<I", out, at + 20, compressed)
            return bytes(out)
        at = out.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"no entry {name}")


def test_a_version_may_be_100_mib_and_an_organiser_sets_each_game_s_limit():
    default = load({})
    assert default.upload_limit("galaxy") == default.upload_limit("mothership") == (100 * MIB, 200 * MIB)
    chosen = load({"ARMADA_GALAXY_UPLOAD_MAX_BYTES": "5000000", "ARMADA_UNPACKED_MAX_BYTES": "9000000"})
    assert chosen.upload_limit("galaxy") == (5_000_000, 9_000_000)
    assert chosen.upload_limit("mothership") == (100 * MIB, 9_000_000)
    assert chosen.upload_limit() == (100 * MIB, 9_000_000)  # a stored archive: the largest of any game


def test_a_100_mib_model_file_passes_the_zip_checks_and_bombs_still_fail(armada):
    """The checks made before unpacking (the headers); the real bytes of a 100 MiB upload go
    through in tests/bots/test_upload_memory.py."""
    armada(upload_max_bytes=100 * MIB, unpacked_max_bytes=200 * MIB)
    size = 100 * MIB - 4096  # the zip's own headers fit in the rest
    model = declaring(stored_zip({"main.py": MAIN, "model.onnx": b"w"}), "model.onnx", size, size)
    with zipfile.ZipFile(io.BytesIO(model)) as archive:
        members = check_zip(archive, 100 * MIB, site_limits("galaxy"))
    assert [info.file_size for info, _parts in members][1] == size
    with zipfile.ZipFile(io.BytesIO(model)) as archive, pytest.raises(BotSpecError, match="zip too large"):
        check_zip(archive, 100 * MIB + 1, site_limits("galaxy"))
    ratio_bomb = zipfile.ZipFile(buffer := io.BytesIO(), "w", compression=zipfile.ZIP_DEFLATED)
    ratio_bomb.writestr("main.py", MAIN)
    ratio_bomb.writestr("pad.bin", b"\0" * (20 * MIB))  # 20 MiB in about 20 KiB: ratio about 1000
    ratio_bomb.close()
    with zipfile.ZipFile(buffer) as archive, pytest.raises(BotSpecError, match="zip bomb"):
        check_zip(archive, len(buffer.getvalue()), site_limits("galaxy"))
    # Past the total even at a harmless ratio: 250 MiB declared in a zip of 3 MiB of noise.
    big = declaring(stored_zip({"main.py": MAIN, "w.bin": os.urandom(3 * MIB)}), "w.bin", 250 * MIB)
    with zipfile.ZipFile(io.BytesIO(big)) as archive, pytest.raises(BotSpecError, match="too large when extracted"):
        check_zip(archive, len(big), site_limits("galaxy"))


@pytest.fixture
def bot(make_user):
    from armada_web.bots.services import create_bot

    return create_bot(user=make_user(), name="modeller", game="galaxy")


def test_past_the_game_s_limit_the_upload_is_refused_with_the_sizes_and_nothing_is_stored(bot, api, armada,
                                                                                          monkeypatch):
    from armada_web.bots import storage
    from armada_web.bots.models import BotVersion
    from armada_web.bots.services import create_bot

    saved = []
    real_save = storage.save_archive
    monkeypatch.setattr(storage, "save_archive", lambda version, data: saved.append(version) or real_save(version,
                                                                                                            data))
    armada.game("galaxy", upload_max_bytes=100_000)
    client = api(bot.owner)
    data = b"#" * 150_000  # past the limit, inside the request's envelope: read, measured, refused
    response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("main.py", data)},
                           format="multipart")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "150000 bytes (147 KiB)" in detail and "the limit is 100000 bytes" in detail and "ONNX" in detail
    huge = client.post(f"/api/bots/{bot.pk}/versions/", {"file": SimpleUploadedFile("main.py", data * 2)},
                       format="multipart")  # far past it: refused before the body is read
    assert huge.status_code == 413 and "the limit is 100000 bytes" in huge.json()["detail"]
    assert saved == [] and not BotVersion.objects.exists()
    other = create_bot(user=bot.owner, name="modeller", game="mothership")  # the other game keeps the default
    accepted = client.post(f"/api/bots/{other.pk}/versions/", {"file": SimpleUploadedFile("main.py", data)},
                           format="multipart")
    assert accepted.status_code == 201 and len(saved) == 1


def test_a_large_upload_is_stored_from_its_file_as_the_normalised_bytes(bot, api):
    """Past FILE_UPLOAD_MAX_MEMORY_SIZE the request's file is on disk; the archive stored is the
    normalised zip of the files, the model entry stored as it is (it does not compress)."""
    from django.conf import settings

    from armada_web.bots import storage

    files = {"main.py": MAIN, "weights/model.onnx": os.urandom(settings.FILE_UPLOAD_MAX_MEMORY_SIZE + MIB)}
    upload = stored_zip({f"bot/{name}": data for name, data in files.items()})
    response = api(bot.owner).post(f"/api/bots/{bot.pk}/versions/",
                                   {"file": SimpleUploadedFile("bot.zip", upload)}, format="multipart")
    assert response.status_code == 201, response.content
    version = bot.versions.get()
    archive = storage.read_archive(version)
    assert archive == normalised_zip(files) and version.sha256 == hashlib.sha256(archive).hexdigest()
    assert version.size == len(upload) and version.files == 2
    model = zipfile.ZipFile(io.BytesIO(archive)).getinfo("weights/model.onnx")
    assert model.compress_type == zipfile.ZIP_STORED


def test_an_entry_that_lies_about_its_size_is_refused_while_streaming(bot):
    from armada_web.storage.archives import UploadError, check_upload

    honest = stored_zip({"main.py": MAIN, "w.bin": os.urandom(1000)})
    with pytest.raises(UploadError, match=r"extracts to|CRC"):
        check_upload(name="bot.zip", data=declaring(honest, "w.bin", 10), game="galaxy")


def test_the_site_tells_the_cli_each_game_s_limit(armada):
    from rest_framework.test import APIClient

    armada(upload_max_bytes=100 * MIB, upload_max_files=300)
    armada.game("galaxy", upload_max_bytes=5_000_000, unpacked_max_bytes=9_000_000)
    info = APIClient().get("/api/version/").json()
    assert info["upload_max_bytes"] == {"galaxy": 5_000_000, "mothership": 100 * MIB}
    assert info["upload_max_unpacked_bytes"]["galaxy"] == 9_000_000 and info["upload_max_files"] == 300
