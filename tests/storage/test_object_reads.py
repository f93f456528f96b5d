"""Reading from object storage streams: an object is copied from its one GET in chunks into a
temporary file that stays in memory only while small (an archive of 100 MiB never sits in a
worker's memory), and a body cut off midway is an OSError (StorageError), so the cache of unpacked
versions calls it a SourceError and the game is given back. Against moto's S3 server over HTTP
(tests/support/storage_server.py); no Docker."""

from __future__ import annotations

import os
from typing import Any

import pytest
from botocore.exceptions import ResponseStreamingError
from botocore.response import StreamingBody
from django.core.files.base import ContentFile

from armada_web.storage import objectstore, unpacked
from armada_web.storage.objectstore import PrivateS3Storage, StorageError


@pytest.fixture
def store(s3_bucket: Any, monkeypatch: Any) -> PrivateS3Storage:
    for key, value in s3_bucket.env().items():
        monkeypatch.setenv(key, value)
    return PrivateS3Storage(bucket_name=s3_bucket.name, endpoint_url=s3_bucket.endpoint_url, timeout_s=3)


def test_a_large_object_is_read_through_a_temporary_file_not_memory(store, monkeypatch):
    monkeypatch.setattr(objectstore, "SPOOL_BYTES", 64 * 1024)  # (1 MiB in use: a quick test)
    data = os.urandom(3 * objectstore.SPOOL_BYTES + 17)
    name = store.save("versions/1/1-big.zip", ContentFile(data))
    with store.open(name, "rb") as handle:
        assert handle.file._rolled  # spilled to disk past SPOOL_BYTES  # type: ignore[attr-defined]
        assert handle.read(10) == data[:10] and handle.read() == data[10:]
    small = store.save("matches/1/seat-1-a1.log", ContentFile(b"turn 1\n"))
    with store.open(small, "rb") as handle:
        assert not handle.file._rolled and handle.read() == b"turn 1\n"  # type: ignore[attr-defined]
    with store.open(small, "r") as handle:
        assert handle.read() == "turn 1\n"
    with pytest.raises(FileNotFoundError):
        store.open("versions/1/2-none.zip", "rb")


def test_a_body_cut_off_midway_is_a_storage_error_and_a_source_error_for_the_cache(store, monkeypatch, tmp_path):
    monkeypatch.setattr(objectstore, "CHUNK_BYTES", 16 * 1024)
    data = os.urandom(2 * objectstore.CHUNK_BYTES)
    name = store.save("versions/1/1-cut.zip", ContentFile(data))
    real_chunks = StreamingBody.iter_chunks

    def cut_off(self, chunk_size=1024):
        chunks = real_chunks(self, chunk_size)
        yield next(chunks)
        raise ResponseStreamingError(error="Connection broken: IncompleteRead")

    monkeypatch.setattr(StreamingBody, "iter_chunks", cut_off)
    with pytest.raises(StorageError, match="failed"):
        store.open(name, "rb")
    source = unpacked.Source("a" * 64, lambda: store.open(name, "rb"))
    with pytest.raises(unpacked.SourceError, match="StorageError"):
        unpacked.entry(source=source, root=tmp_path / "cache", limit=1 << 30)
    assert list((tmp_path / "cache").iterdir()) == []
