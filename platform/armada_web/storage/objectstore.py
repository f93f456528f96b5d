"""Where the site's private files live: bot archives, replays and logs, behind Django's storage API.

Two backends with the same object names (`versions/<bot>/<n>-<sha>.zip`,
`matches/<id>/replay-a<attempt>.json.gz`, `matches/<id>/seat-<n>-a<attempt>.log`):

- `PrivateFileStorage`: a local folder (DATA_DIR/private), the default. A file is written under a
  temporary name and linked into place, so a full disk never leaves a half-written file under a
  real name.
- `PrivateS3Storage`: any S3-compatible store (django-storages and boto3) when ARMADA_S3_BUCKET is
  set; credentials from boto3's own chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
  AWS_DEFAULT_REGION, an instance role). Its objects are private (the bucket's default ACL). One
  request per read (a GET) and per write (a PUT): the site's names are unique by construction
  (ids, version numbers, attempt numbers, sha256), so no existence check comes first.

Neither has URLs: every file reaches a user through a view that checks who may see it. Every
failure of the store is an `OSError` (`StorageError`, or `FileNotFoundError` for a missing object),
so callers handle a lost bucket like a full disk: an upload answers 503, a match is given back
(void after its last attempt). Reads stream (a temporary file, in memory only while small).
`check()` is the /healthz probe (write, read back, delete); `walk()` lists every stored name;
`ensure_bucket()` creates a missing bucket (`manage.py ensure_bucket`, compose's first start).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import io
import logging
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from botocore.config import Config as BotoConfig
from botocore.exceptions import BotoCoreError, ClientError
from django.core.files.base import ContentFile, File
from django.core.files.storage import FileSystemStorage, Storage, default_storage
from storages.backends.s3 import S3Storage
from storages.utils import clean_name

from armada_web.web.errors import Unavailable

#: Names of the health probe's objects (never walked by retention or backups).
PROBE_FOLDER = "health"
#: How the local folder's writes in progress begin (hidden from `listdir`: not yet stored).
PARTIAL = ".partial-"
#: Bytes of an object read into memory before the rest goes to a temporary file; bytes per chunk.
SPOOL_BYTES = 1024 * 1024
CHUNK_BYTES = 256 * 1024
T = TypeVar("T")
log = logging.getLogger(__name__)


class StorageError(OSError):
    """The store failed (unreachable, no such bucket, no permission, full): the message says which."""


def unavailable(exc: OSError) -> Unavailable:
    """What a read answers when the store fails: the cause goes to the log, for the operators, and
    not to the answer, which anyone may read (an S3 error names the bucket and its endpoint, a
    disk's the path; a review)."""
    log.warning("the storage failed: %s", exc)
    return Unavailable(f"the storage is unavailable ({exc.__class__.__name__}); try again later")


class PrivateFileStorage(FileSystemStorage):
    """A folder outside every served path; asking for a file's URL is an error, not a link."""

    def __init__(self, *args: Any, min_free_mb: int = 0, **kwargs: Any) -> None:
        # Its owner's alone (Django's default is 0644 files): bots' code, replays and logs are private
        # to their users, and another account on the host must not read them either.
        kwargs.setdefault("file_permissions_mode", 0o600)
        kwargs.setdefault("directory_permissions_mode", 0o700)
        super().__init__(*args, **kwargs)
        self.min_free_mb = min_free_mb

    def url(self, name: str | None) -> str:
        raise ValueError("private storage has no URLs: send files through a view that checks the owner")

    def _save(self, name: str, content: Any) -> str:
        """Write under a temporary name in the same folder, then link it to `name` (or the next free
        name): the real name appears complete or not at all."""
        full = Path(self.path(name))
        _make_folders(full.parent, Path(self.location), self.directory_permissions_mode or 0o777)
        temporary = full.parent / f"{PARTIAL}{uuid.uuid4().hex}"
        try:
            with open(temporary, "xb") as handle:
                if hasattr(content, "temporary_file_path"):
                    with open(content.temporary_file_path(), "rb") as source:
                        shutil.copyfileobj(source, handle)
                else:
                    for chunk in content.chunks():
                        handle.write(chunk.encode() if isinstance(chunk, str) else chunk)
                handle.flush()
                os.fsync(handle.fileno())
            if self.file_permissions_mode is not None:
                os.chmod(temporary, self.file_permissions_mode)
            while True:
                try:
                    _place(temporary, full)
                    break
                except FileExistsError:  # taken since get_available_name: the next free name
                    name = self.get_available_name(name)
                    full = Path(self.path(name))
        finally:
            temporary.unlink(missing_ok=True)
        return str(name).replace("\\", "/")

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        dirs, files = super().listdir(path)
        return dirs, [f for f in files if not f.startswith(PARTIAL)]

    def listdir_with_partials(self, path: str) -> tuple[list[str], list[str]]:
        """`listdir` with the writes in progress, and those a killed process left (retention's orphans)."""
        return super().listdir(path)

    def describe(self) -> str:
        Path(self.location).mkdir(parents=True, exist_ok=True)
        usage = shutil.disk_usage(self.location)
        return f"local folder {self.location}, {usage.free / 2**30:.1f} GiB free"

    def check_space(self) -> None:
        """StorageError when the folder's disk has less than `min_free_mb` free."""
        free_mb = shutil.disk_usage(self.location).free // 2**20
        if free_mb < self.min_free_mb:
            raise StorageError(f"the disk of {self.location} is full: {free_mb} MiB free, less than "
                               f"ARMADA_STORAGE_MIN_FREE_MB={self.min_free_mb}")


def _make_folders(folder: Path, root: Path, mode: int) -> None:
    """`folder` and every missing folder above it up to and including `root`, each made with `mode`."""
    missing = []
    while not folder.is_dir():
        missing.append(folder)
        if folder == root or folder.parent == folder:
            break
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(mode=mode, exist_ok=True)


def _place(temporary: Path, target: Path) -> None:
    """Give the complete file at `temporary` the name `target`, never over an existing file:
    a hard link where the file system has them, else a rename after a check."""
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise
        if target.exists():
            raise FileExistsError(str(target)) from None
        os.replace(temporary, target)


def _store_errors(method: Callable[..., T]) -> Callable[..., T]:
    """Turn boto's errors into OSErrors naming the bucket and the reason."""
    @functools.wraps(method)
    def wrapped(self: PrivateS3Storage, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except ClientError as exc:
            raise self.translate(exc, args[0] if args else "") from None
        except BotoCoreError as exc:
            raise StorageError(f"object storage {self.where()} failed: {exc}") from None
    return wrapped


class PrivateS3Storage(S3Storage):
    """An S3-compatible bucket whose objects only ever leave through the site's views."""

    default_acl = None  # the bucket's own: private
    file_overwrite = True  # the names are unique by construction: no HEAD before each PUT
    querystring_auth = True

    def __init__(self, *, timeout_s: int = 10, **settings: Any) -> None:
        settings.setdefault("client_config", BotoConfig(
            s3={"addressing_style": settings.pop("addressing_style", "auto")},
            connect_timeout=timeout_s, read_timeout=timeout_s,
            retries={"max_attempts": 2, "mode": "standard"}))
        super().__init__(**settings)

    def where(self) -> str:
        return f"bucket {self.bucket_name!r}" + (f" at {self.endpoint_url}" if self.endpoint_url else "")

    def translate(self, exc: ClientError, name: str) -> OSError:
        error = exc.response.get("Error", {})
        code = str(error.get("Code", ""))
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if code == "NoSuchBucket" or (status == 404 and not name):
            return StorageError(f"object storage {self.where()} failed: the bucket does not exist")
        if code in ("NoSuchKey", "404") or (status == 404 and name):
            return FileNotFoundError(f"no object {name!r} in {self.where()}")
        return StorageError(f"object storage {self.where()} failed: {code or status}: {error.get('Message', exc)}")

    def url(self, name: str | None, *args: Any, **kwargs: Any) -> str:
        raise ValueError("private storage has no URLs: send files through a view that checks the owner")

    @_store_errors
    def _open(self, name: str, mode: str = "rb") -> Any:
        """Reading: the object in one GET, streamed in chunks into a temporary file kept in memory
        up to SPOOL_BYTES (an archive of 100 MiB never sits in a worker's memory), inside this
        error handling rather than at the first read: a body cut off midway is a StorageError."""
        if "w" in mode or "a" in mode or "+" in mode:
            return super()._open(name, mode)
        key = self._normalize_name(clean_name(name))
        body = self.connection.meta.client.get_object(Bucket=self.bucket_name, Key=key)["Body"]
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (returned open)
        try:
            with contextlib.closing(body):
                for chunk in body.iter_chunks(CHUNK_BYTES):
                    spool.write(chunk)
            spool.seek(0)
        except BaseException:
            spool.close()
            raise
        if "b" not in mode:
            with spool:
                return ContentFile(spool.read().decode(), name=name)
        return File(spool, name=name)

    @_store_errors
    def _save(self, name: str, content: Any) -> str:
        """One PUT of the whole content; a binary file is streamed from where it is (an archive of
        100 MiB is never read into the web process's memory)."""
        cleaned = clean_name(name)
        key = self._normalize_name(cleaned)
        params = self._get_write_parameters(key, content)
        if hasattr(content, "seek") and getattr(content, "seekable", lambda: True)():
            content.seek(0)
        stream = getattr(content, "file", None)
        if stream is not None and not isinstance(stream, io.TextIOBase) and hasattr(stream, "seek"):
            body: Any = stream
        else:
            data = content.read()
            body = data.encode() if isinstance(data, str) else data
        self.connection.meta.client.put_object(Bucket=self.bucket_name, Key=key, Body=body, **params)
        return str(cleaned)

    @_store_errors
    def delete(self, name: str) -> None:
        super().delete(name)

    @_store_errors
    def exists(self, name: str) -> bool:
        return bool(super().exists(name))

    @_store_errors
    def listdir(self, name: str) -> tuple[list[str], list[str]]:
        dirs, files = super().listdir(name)
        return list(dirs), list(files)

    @_store_errors
    def size(self, name: str) -> int:
        return int(super().size(name))

    @_store_errors
    def get_modified_time(self, name: str) -> Any:
        return super().get_modified_time(name)

    @_store_errors
    def describe(self) -> str:
        self.connection.meta.client.head_bucket(Bucket=self.bucket_name)
        return f"object storage {self.where()}"

    def create_if_missing(self) -> bool:
        """Create the bucket (private: the store's default) unless it exists; True when created.
        StorageError naming the bucket and the endpoint when the store cannot be asked or refuses."""
        client = self.connection.meta.client
        try:
            client.head_bucket(Bucket=self.bucket_name)
            return False
        except ClientError as exc:
            if exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") != 404:
                raise self.translate(exc, "") from None
        except BotoCoreError as exc:
            raise StorageError(f"object storage {self.where()} failed: {exc}") from None
        params: dict[str, Any] = {"Bucket": self.bucket_name}
        region = client.meta.region_name
        if region and region != "us-east-1":  # AWS wants the region named, except its first one
            params["CreateBucketConfiguration"] = {"LocationConstraint": region}
        try:
            client.create_bucket(**params)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "BucketAlreadyOwnedByYou":  # made meanwhile
                return False
            raise StorageError(f"object storage {self.where()}: cannot create the bucket: "
                               f"{exc.response.get('Error', {}).get('Message', exc)}") from None
        except BotoCoreError as exc:
            raise StorageError(f"object storage {self.where()}: cannot create the bucket: {exc}") from None
        return True


def check(storage: Storage | None = None) -> str:
    """The /healthz probe: the store answers, takes a small object, gives it back and deletes it.
    Returns what it found; raises OSError (or ValueError) saying why not."""
    store: Any = storage or default_storage
    describe = getattr(store, "describe", None)
    detail = describe() if describe else type(store).__name__
    if isinstance(store, PrivateFileStorage):
        store.check_space()
    token = uuid.uuid4().hex
    probe = f"{PROBE_FOLDER}/probe-{socket.gethostname()}-{os.getpid()}-{token[:8]}"
    name = store.save(probe, ContentFile(token.encode()))
    try:
        with store.open(name, "rb") as handle:
            if handle.read() != token.encode():
                raise StorageError(f"{detail}: the probe object came back different")
    finally:
        store.delete(name)
    return str(detail)


def ensure_bucket(*, storage: Storage | None = None) -> tuple[str, str]:
    """Create the site's bucket when it is missing (idempotent): returns where the files go and
    what was done: "created", "exists", or "local" (local files: their folder is made on first
    write). StorageError naming the bucket and the endpoint when it cannot."""
    store: Any = storage or default_storage
    if isinstance(store, PrivateS3Storage):
        return f"object storage {store.where()}", "created" if store.create_if_missing() else "exists"
    return f"local folder {getattr(store, 'location', type(store).__name__)}", "local"


def walk(folder: str = "", storage: Storage | None = None, *, partials: bool = False) -> Iterator[str]:
    """Every stored name under `folder` ("" for all, the probes' folder left out); OSError when
    the store cannot be listed. `partials`: the local folder's writes in progress too (`PARTIAL`: a
    process killed mid-write leaves one, which only retention removes, once past its grace)."""
    store: Any = storage or default_storage
    lister = getattr(store, "listdir_with_partials", store.listdir) if partials else store.listdir
    try:
        dirs, files = lister(folder)
    except FileNotFoundError:  # nothing stored there yet
        return
    prefix = f"{folder}/" if folder else ""
    for name in sorted(files):
        yield prefix + name
    for sub in sorted(dirs):
        if not (prefix == "" and sub == PROBE_FOLDER):
            yield from walk(prefix + sub, store, partials=partials)
