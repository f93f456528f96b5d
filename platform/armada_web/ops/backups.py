"""Backing up and restoring a stopped deployment: its database and its storage, in one folder.

`backup(folder=...)` writes
- `database.json.gz`: every row (Django's `dumpdata` with natural keys; content types and
  permissions are left to `migrate`, sessions are not kept), readable by any database engine
  Django runs on, so a SQLite site restores onto PostgreSQL too;
- `storage/<name>`: every stored object (archives, replays, logs) under its own name, from the
  local folder or the bucket;
- `manifest.json`: when, from which engine and storage (the bucket and its endpoint, or the
  folder), the migrations the database was at, and the size and sha256 of every file (the
  database's too).

Everything it writes is its owner's only, whatever the umask: files 0600, folders 0700 (DIR too
when it makes it), since the rows hold password hashes, API token digests and e-mail addresses.

`restore(folder=...)` checks every file against the manifest before it changes anything, brings
the database to the backup's migrations, loads the rows, puts every object back under its name,
then applies this code's newer migrations. It refuses a database or storage that holds anything
(`replace=True` empties both first: on PostgreSQL in the transaction that loads the rows, the
files once they are in), and both refuse while workers hold jobs (a running
match or validation: stop the workers first; `force=True` for rows a lost worker left).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.files.base import File
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from armada.sizes import human_size
from armada_web.bots.models import BotVersion, VersionStatus
from armada_web.matches.models import Match, MatchStatus
from armada_web.storage import objectstore
from armada_web.storage.objectstore import PrivateS3Storage
from armada_web.web.errors import Conflict, Invalid

FORMAT = 1
DATABASE_FILE = "database.json.gz"
STORAGE_FOLDER = "storage"
#: Rows `migrate` makes itself (and sessions, which are not worth keeping).
NOT_DUMPED = ("contenttypes", "auth.permission", "sessions")
CHUNK = 1024 * 1024
#: A backup's files and folders: its owner's only.
FILE_MODE = 0o600
FOLDER_MODE = 0o700


@dataclass(frozen=True)
class Summary:
    """What a backup holds or a restore put back."""

    folder: Path
    rows: int
    files: int
    bytes: int

    def __str__(self) -> str:
        return f"{self.rows} rows and {self.files} stored files ({human_size(self.bytes)}) in {self.folder}"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _private_folder(folder: Path) -> None:
    """Make `folder` and every missing parent, each 0700 whatever the umask (existing ones as they are)."""
    missing = [p for p in [folder, *folder.parents] if not p.exists()]
    for path in reversed(missing):
        try:
            path.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            continue
        os.chmod(path, FOLDER_MODE)


def _private_file(path: Path) -> int:
    """A new empty file at `path`, 0600 whatever the umask, open for writing: its descriptor."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return fd


def storage_description(store: Any = None) -> dict[str, Any]:
    """Where the stored objects live, for the manifest: the bucket and its endpoint, or the folder."""
    store = store if store is not None else default_storage
    out: dict[str, Any] = {"backend": store.__class__.__name__}  # (default_storage is a lazy proxy)
    if isinstance(store, PrivateS3Storage):
        endpoint = store.endpoint_url or store.connection.meta.client.meta.endpoint_url
        out.update(kind="s3", bucket=store.bucket_name, endpoint=endpoint)
    elif hasattr(store, "location"):
        out.update(kind="folder", folder=str(Path(store.location).resolve()))
    return out


def _busy() -> str | None:
    """What running workers hold now, or None."""
    running = Match.objects.filter(status=MatchStatus.RUNNING).count()
    validating = BotVersion.objects.filter(status=VersionStatus.VALIDATING).count()
    if running or validating:
        return f"{running} matches are running and {validating} versions validating"
    return None


def _check_stopped(force: bool) -> None:
    busy = _busy()
    if busy and not force:
        raise Conflict(f"{busy}: stop the workers first (docs/deploy.md, \"Backups\"); --force if those rows "
                       "were left by workers that are gone")


def _state() -> tuple[int, int, str | None]:
    """What workers and beat change: the matches and versions (made, queued, recorded: not the rows
    a visitor's request writes, such as a sign-in's sighting), and the running jobs."""
    return Match.objects.count(), BotVersion.objects.count(), _busy()


def _changed(before: tuple[int, int, str | None], force: bool, doing: str, again: str) -> Conflict | None:
    """After the rows were read or written (`before`: `_state()` then), the Conflict to raise when
    workers or beat ran meanwhile (a match made, started or ended, a version validated), which the
    check before cannot see coming: an organiser's trial backed up and restored with the workers
    and beat running, and got a mix of the backup and the rows made meanwhile, silently."""
    now = _state()
    if force or now == before:
        return None
    what = f"{now[0] - before[0]:+d} matches, {now[1] - before[1]:+d} versions"
    what += f"; now {now[2]}" if now[2] and now[2] != before[2] else ""
    return Conflict(f"the site changed while it was {doing} ({what}): stop the workers and beat "
                    f"(docs/deploy.md, \"Backups\"), then {again}")


def _applied() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for app, name in MigrationRecorder(connection).applied_migrations():
        out.setdefault(app, []).append(name)
    return {app: sorted(names) for app, names in sorted(out.items())}


def _dumped_models() -> list[str]:
    skipped = {label.lower() for label in NOT_DUMPED}
    return [m._meta.label for m in apps.get_models()
            if m._meta.app_label not in skipped and m._meta.label_lower not in skipped]


def _rows() -> int:
    return sum(apps.get_model(label).objects.count() for label in _dumped_models())


def backup(*, folder: Path, force: bool = False) -> Summary:
    """Write the database and every stored object into `folder` (new or empty)."""
    if folder.exists() and any(folder.iterdir()):
        raise Invalid(f"{folder} is not empty: give a new folder for the backup")
    _check_stopped(force)
    _private_folder(folder)
    database = folder / DATABASE_FILE
    os.close(_private_file(database))  # dumpdata truncates it and keeps the mode
    before = _state()
    call_command("dumpdata", *_dumped_models(), natural_foreign=True, natural_primary=True, output=str(database),
                 verbosity=0)
    changed = _changed(before, force, "backed up", "back up into a new folder")
    if changed:
        raise changed  # (before the manifest: a backup without one is never restored)
    files: list[dict[str, Any]] = []
    for name in objectstore.walk():
        target = folder / STORAGE_FOLDER / name
        _private_folder(target.parent)
        with default_storage.open(name, "rb") as source, os.fdopen(_private_file(target), "wb") as out:
            shutil.copyfileobj(source, out, CHUNK)
        files.append({"name": name, "size": target.stat().st_size, "sha256": _sha256(target)})
    rows = _rows()
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "created": timezone.now().isoformat(),
        "database": {"vendor": connection.vendor, "file": DATABASE_FILE, "size": database.stat().st_size,
                     "sha256": _sha256(database), "rows": rows},
        "migrations": _applied(),
        "storage": {**storage_description(), "files": files},
    }
    with os.fdopen(_private_file(folder / "manifest.json"), "w") as handle:
        handle.write(json.dumps(manifest, indent=1) + "\n")
    return Summary(folder, rows, len(files), sum(int(f["size"]) for f in files))


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of a backup, every file checked against it; Invalid saying what is wrong."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise Invalid(f"{folder} holds no readable backup manifest ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise Invalid(f"backup format {manifest.get('format')!r} is not {FORMAT}: restore it with the version "
                      "that made it")
    entries = [(DATABASE_FILE, manifest["database"])] + [
        (f"{STORAGE_FOLDER}/{f['name']}", f) for f in manifest["storage"]["files"]]
    for relative, entry in entries:
        path = folder / relative
        if not path.is_file():
            raise Invalid(f"the backup misses {relative}")
        if path.stat().st_size != entry["size"] or _sha256(path) != entry["sha256"]:
            raise Invalid(f"{relative} differs from the backup's manifest (damaged or changed)")
    return manifest


def _targets(migrations: dict[str, list[str]]) -> list[tuple[str, str | None]]:
    """Per app of this code, the latest migration the backup's database had (None: none of it)."""
    graph = MigrationLoader(connection, ignore_no_migrations=True).graph
    targets: list[tuple[str, str | None]] = []
    for app in sorted({node[0] for node in graph.nodes}):
        names = set(migrations.get(app, []))
        unknown = names - {name for a, name in graph.nodes if a == app}
        if unknown:
            raise Invalid(f"the backup was made by newer code (app {app} has migrations {', '.join(sorted(unknown))} "
                          "this code lacks): restore it with that version")
        leaves = [name for name in sorted(names)
                  if not any(other != name and (app, name) in graph.forwards_plan((app, other)) for other in names)]
        targets += [(app, leaf) for leaf in leaves] or [(app, None)]
    return targets


def _migrate_to(targets: list[tuple[str, str | None]]) -> None:
    """The database to exactly those migrations (forwards or backwards), as `migrate` would."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets, plan=executor.migration_plan(targets))  # type: ignore[arg-type]


def restore(*, folder: Path, replace: bool = False, force: bool = False) -> Summary:
    """Put a backup back into this deployment's database and storage (see the module's text)."""
    manifest = read_manifest(folder)
    call_command("migrate", verbosity=0, interactive=False)  # a new database: its tables first
    _check_stopped(force)
    # Every refusal before anything is emptied: a backup of newer code (an operator back on the old
    # images with a backup taken after the upgrade) once emptied the site, then refused.
    targets = _targets(manifest["migrations"])
    stored = list(objectstore.walk())
    if (_rows() or stored) and not replace:
        raise Conflict(f"this deployment is not empty ({_rows()} rows, {len(stored)} stored files): restore into "
                       "a new one, or give --replace to delete everything it holds first")
    # On PostgreSQL emptying, migrating and loading are one transaction (its schema changes roll back
    # too): a load that fails leaves the deployment as it was. The old files go only once the rows
    # are in. (SQLite cannot change its schema inside a transaction with its foreign keys checked.)
    with transaction.atomic() if connection.vendor == "postgresql" else contextlib.nullcontext():
        if replace:
            call_command("flush", interactive=False, verbosity=0)
        _migrate_to(targets)
        call_command("loaddata", str(folder / DATABASE_FILE), verbosity=0)
    for name in stored if replace else ():
        default_storage.delete(name)
    loaded = _state()  # (the backup's own running rows, if it was made with --force, count as loaded)
    total = 0
    for entry in manifest["storage"]["files"]:
        with open(folder / STORAGE_FOLDER / entry["name"], "rb") as handle:
            saved = default_storage.save(entry["name"], File(handle))
        if saved != entry["name"]:
            raise Conflict(f"the storage kept {entry['name']} as {saved}: it was not empty")
        total += entry["size"]
    changed = _changed(loaded, force, "restored", "restore again with --replace")
    call_command("migrate", verbosity=0, interactive=False)  # this code's newer migrations, if any
    if changed:
        raise changed  # (after them: the site is on this code's schema either way)
    return Summary(folder, _rows(), len(manifest["storage"]["files"]), total)
