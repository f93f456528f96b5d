"""`manage.py backup DIR` / `manage.py restore DIR`: a stopped deployment's database and storage,
round trip onto a new SQLite site with local files and onto a new PostgreSQL site with object
storage (moto's S3 server): every row, every stored file, passwords and API tokens still valid,
new rows after it; a damaged or partial backup and a non-empty target are refused; what a backup
writes is its owner's only (files 0600, folders 0700, under a umask that would give them to all) and
its manifest names where the storage was (the folder, or the bucket and its endpoint)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

import armada
from tests.support.services import drop_postgres_database, fresh_postgres_database

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]

#: What a site holds, as JSON: rows per model, stored files by sha256, a password and a token that work.
PROBE = """
import hashlib, json, sys, django
django.setup()
from django.apps import apps
from django.contrib.auth import authenticate
from django.core.files.storage import default_storage
from armada_web.storage import objectstore
from armada_web.accounts.models import ApiToken
from armada_web.matches.models import Match
from armada_web.matches.queries import replay_of
from knox.auth import TokenAuthentication
secret = sys.argv[1]
out = {"rows": {m._meta.label: m.objects.count() for m in apps.get_models()
                if m._meta.app_label not in ("contenttypes", "sessions") and m._meta.label != "auth.Permission"}}
out["files"] = {}
for name in objectstore.walk():
    with default_storage.open(name, "rb") as handle:
        out["files"][name] = hashlib.sha256(handle.read()).hexdigest()
out["password"] = authenticate(username="alice", password="a-long-test-password-42") is not None
out["token"] = TokenAuthentication().authenticate_credentials(secret.encode())[0].username
match = Match.objects.get(status="finished")
out["replay_steps"] = len(replay_of(match)["steps"])
out["names"] = sorted([match.replay.name] + [p.log.name for p in match.participants.all()])
if len(sys.argv) > 2:  # a new row after the restore: the sequences go on from the restored ids
    from django.contrib.auth.models import User
    out["new_user_id"] = User.objects.create_user("newcomer").pk
    out["max_user_id"] = max(User.objects.exclude(username="newcomer").values_list("pk", flat=True))
print(json.dumps(out))
"""


@pytest.fixture
def deployment(make_user, valid_version, settings):
    """A small site's worth of rows and files: users, a token, bots, a finished match with its files."""
    from armada_web.accounts.services import create_token
    from armada_web.matches import storage
    from armada_web.matches.models import Match, Participant
    from armada_web.matches.services import create_match

    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)
    alice, bob = make_user("alice"), make_user("bob")
    make_user("boss", is_staff=True)
    _token, secret = create_token(user=alice, name="cli")
    first, second = valid_version(alice, "alpha"), valid_version(bob, "bravo")
    match = create_match(game="galaxy", first=first, second=second, kind="ranked", seed=4)
    replay = armada.run("galaxy", ["builtin:random", "builtin:random"], seed=4, config={"max_turns": 2}).replay
    Match.objects.filter(pk=match.pk).update(status="finished", replay=storage.save_replay(match.pk, 1, replay))
    for p in Participant.objects.filter(match=match):
        Participant.objects.filter(pk=p.pk).update(log=storage.save_log(match.pk, 1, p.seat, f"seat {p.seat} log"),
                                                   result="win" if p.seat == 1 else "loss")
    return secret


def probe(env: dict[str, str], secret: str, new_row: bool = False) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", PROBE, secret, *(["new"] if new_row else [])], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


def site_env(folder: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ARMADA_", "AWS_")) and k != "DATABASE_URL"}
    return {**clean, "DJANGO_SETTINGS_MODULE": "armada_web.settings", "ARMADA_DATA_DIR": str(folder),
            "CACHE_URL": "locmem://", **extra}


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """An empty SQLite site's database after `manage.py migrate` (as `make up` leaves a new site),
    made once: a restore onto it skips migrating from nothing (seconds a restore). One round trip
    still restores onto a folder with no database at all."""
    folder = tmp_path_factory.mktemp("migrated-site")
    done = manage(site_env(folder), "migrate", "--no-input", "-v", "0")
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "armada.sqlite3"


def new_site(folder: Path, migrated: Path) -> dict[str, str]:
    """A new SQLite site in `folder` that has run `migrate` and holds nothing else."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(migrated, folder / "armada.sqlite3")
    return site_env(folder)


def source_env(tmp_path: Path) -> dict[str, str]:
    """This test's own site (its database and storage folder) for a subprocess."""
    from tests.support.fixtures import database_env

    return site_env(tmp_path, **database_env())


def test_round_trip_onto_sqlite_with_files_and_postgresql_with_a_bucket(deployment, tmp_path, s3_bucket,
                                                                         migrated_sqlite):
    secret = deployment
    before = probe(source_env(tmp_path), secret)
    assert len(before["files"]) == 5 and before["password"] and before["token"] == "alice"  # 2 archives, 3 files
    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {f["name"] for f in manifest["storage"]["files"]} == set(before["files"])
    assert manifest["migrations"]["matches"] and manifest["database"]["rows"] > 10

    sqlite_site = site_env(tmp_path / "restored-sqlite")
    done = manage(sqlite_site, "restore", str(folder))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("restored ")
    restored = probe(sqlite_site, secret, new_row=True)
    assert restored["new_user_id"] > restored["max_user_id"]
    assert {k: v for k, v in restored.items() if k not in ("new_user_id", "max_user_id")} == before

    name = f"armada_restore_{uuid.uuid4().hex[:8]}"
    url = fresh_postgres_database(name)
    try:
        pg_site = site_env(tmp_path / "restored-pg", DATABASE_URL=url, **s3_bucket.env())
        done = manage(pg_site, "restore", str(folder))
        assert done.returncode == 0, done.stderr[-3000:]
        restored = probe(pg_site, secret, new_row=True)
        assert restored["new_user_id"] > restored["max_user_id"]  # PostgreSQL's sequences were moved on
        assert {k: v for k, v in restored.items() if k not in ("new_user_id", "max_user_id")} == before
        keys = {e["Key"] for e in s3_bucket.client().list_objects_v2(Bucket=s3_bucket.name)["Contents"]}
        assert keys == set(before["files"])  # the same object names in the bucket as in the folder

        # and back again: a backup of the PostgreSQL + bucket site restores onto SQLite
        second = tmp_path / "backup-of-pg"
        done = manage(pg_site, "backup", str(second))
        assert done.returncode == 0, done.stderr[-3000:]
        again = new_site(tmp_path / "restored-again", migrated_sqlite)
        assert manage(again, "restore", str(second)).returncode == 0
        assert probe(again, secret)["files"] == before["files"]
    finally:
        drop_postgres_database(name)


def test_what_restore_and_backup_refuse(deployment, tmp_path, migrated_sqlite):
    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    with pytest.raises(CommandError, match="is not empty: give a new folder"):
        call_command("backup", str(folder))
    # a non-empty deployment (this one) is not overwritten without --replace
    with pytest.raises(CommandError, match=r"this deployment is not empty \(\d+ rows, 5 stored files\)"):
        call_command("restore", str(folder))
    # a damaged file is found before anything changes
    target = new_site(tmp_path / "target", migrated_sqlite)
    stored = sorted((folder / "storage").rglob("*.log"))[0]
    stored.write_bytes(stored.read_bytes() + b"!")
    done = manage(target, "restore", str(folder))
    assert done.returncode != 0
    assert "differs from the backup's manifest" in done.stderr and "Traceback" not in done.stderr
    stored.unlink()
    done = manage(target, "restore", str(folder))
    assert done.returncode != 0 and "the backup misses storage/matches/" in done.stderr
    # running workers: stop them first
    from armada_web.matches.models import Match

    Match.objects.update(status="running")
    with pytest.raises(CommandError, match="1 matches are running and 0 versions validating: stop the workers"):
        call_command("backup", str(tmp_path / "other"))
    call_command("backup", str(tmp_path / "forced"), force=True)  # rows a lost worker left
    # ... and it restores: its own running match is the backup's, not one a worker started meanwhile
    done = manage(new_site(tmp_path / "from-forced", migrated_sqlite), "restore", str(tmp_path / "forced"))
    assert done.returncode == 0, done.stderr[-2000:]


def test_replace_empties_the_target_first(deployment, tmp_path, migrated_sqlite):
    secret = deployment
    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    target = new_site(tmp_path / "target", migrated_sqlite)
    assert manage(target, "restore", str(folder)).returncode == 0
    stray = tmp_path / "target" / "private" / "matches" / "999" / "replay-a1.json.gz"
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"old")
    done = manage(target, "restore", str(folder))
    assert done.returncode != 0 and "give --replace" in done.stderr
    done = manage(target, "restore", "--replace", str(folder))
    assert done.returncode == 0, done.stderr[-3000:]
    assert not stray.exists()
    after = probe(target, secret)
    assert after["files"] == {n: hashlib.sha256((folder / "storage" / n).read_bytes()).hexdigest()
                              for n in after["files"]} and len(after["files"]) == 5


def modes(folder: Path) -> dict[str, int]:
    """Every file's and folder's permission bits under `folder` (itself as ".")."""
    return {str(p.relative_to(folder)): p.stat().st_mode & 0o777 for p in [folder, *folder.rglob("*")]}


@pytest.fixture
def permissive_umask():
    """A umask that lets everyone read and write what is created (as a careless host's might)."""
    old = os.umask(0)
    yield
    os.umask(old)


def test_a_backup_is_its_owners_only_and_names_its_folder(deployment, tmp_path, settings, permissive_umask,
                                                           migrated_sqlite):
    folder = tmp_path / "backups" / "today"  # the parent is new too
    call_command("backup", str(folder))
    found = modes(folder)
    files = {name: mode for name, mode in found.items() if (folder / name).is_file()}
    folders = {name: mode for name, mode in found.items() if (folder / name).is_dir()}
    assert {"database.json.gz", "manifest.json"} <= set(files) and len(files) == 2 + 5
    assert set(files.values()) == {0o600}, files
    assert "storage/matches" in folders and set(folders.values()) == {0o700}, folders
    assert (tmp_path / "backups").stat().st_mode & 0o777 == 0o700
    manifest = json.loads((folder / "manifest.json").read_text())
    location = Path(settings.STORAGES["default"]["OPTIONS"]["location"]).resolve()
    assert {k: v for k, v in manifest["storage"].items() if k != "files"} == {
        "backend": "PrivateFileStorage", "kind": "folder", "folder": str(location)}

    # an existing empty folder keeps its own mode; what goes into it is private all the same
    given = tmp_path / "given"
    given.mkdir(mode=0o755)
    os.chmod(given, 0o755)
    call_command("backup", str(given))
    assert given.stat().st_mode & 0o777 == 0o755
    assert {mode for name, mode in modes(given).items() if name != "."} <= {0o600, 0o700}

    # a manifest written before the storage's place was named still reads and restores
    from armada_web.ops.backups import read_manifest

    old = json.loads((given / "manifest.json").read_text())
    old["storage"] = {"backend": "DefaultStorage", "files": old["storage"]["files"]}
    (given / "manifest.json").write_text(json.dumps(old))
    assert read_manifest(given)["storage"]["backend"] == "DefaultStorage"
    target = new_site(tmp_path / "target", migrated_sqlite)
    done = manage(target, "restore", str(given))
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_manifest_names_the_bucket_and_its_endpoint(tmp_path, settings, s3_bucket, monkeypatch):
    for key, value in s3_bucket.env().items():
        monkeypatch.setenv(key, value)
    settings.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "armada_web.storage.objectstore.PrivateS3Storage",
        "OPTIONS": {"bucket_name": s3_bucket.name, "endpoint_url": s3_bucket.endpoint_url, "timeout_s": 3}}}
    s3_bucket.client().put_object(Bucket=s3_bucket.name, Key="matches/1/replay-a1.json.gz", Body=b"replay")
    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["storage"] == {
        "backend": "PrivateS3Storage", "kind": "s3", "bucket": s3_bucket.name, "endpoint": s3_bucket.endpoint_url,
        "files": [{"name": "matches/1/replay-a1.json.gz", "size": 6, "sha256": hashlib.sha256(b"replay").hexdigest()}]}
    assert (folder / "storage/matches/1/replay-a1.json.gz").stat().st_mode & 0o777 == 0o600


def test_a_backup_of_newer_code_is_refused_before_anything_is_emptied(deployment, tmp_path):
    """An organiser's trial: `restore --replace` with a backup made after an upgrade (its migrations
    unknown to this code) emptied the whole site (users 2 -> 0, matches 263 -> 0, every stored
    object), then refused: "the backup was made by newer code"."""
    from armada_web.ops.backups import _rows
    from armada_web.storage import objectstore

    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["migrations"]["ladder"].append("0099_future")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    rows, files = _rows(), sorted(objectstore.walk())
    with pytest.raises(CommandError, match="the backup was made by newer code"):
        call_command("restore", str(folder), replace=True)
    assert _rows() == rows and sorted(objectstore.walk()) == files and files


def test_a_backup_that_workers_changed_while_it_ran_is_refused(deployment, tmp_path, monkeypatch):
    """An organiser's trial: with the workers and beat running, backups went ahead (the check before
    saw no match running at that instant) and restores mixed in rows made meanwhile, silently. A
    match started while the rows were read refuses the backup (no manifest: it cannot be restored)."""
    from armada_web.matches.models import Match
    from armada_web.ops import backups

    real = backups.call_command

    def worker_meanwhile(name: str, *args: Any, **options: Any) -> Any:
        done = real(name, *args, **options)
        if name == "dumpdata":
            Match.objects.update(status="running")  # a worker claimed a match meanwhile
        return done

    monkeypatch.setattr(backups, "call_command", worker_meanwhile)
    with pytest.raises(CommandError, match=r"the site changed while it was backed up \(\+0 matches, \+0 versions; "
                                           r"now 1 matches are running and 0 versions validating\): stop the workers"):
        call_command("backup", str(tmp_path / "busy"))
    assert not (tmp_path / "busy" / "manifest.json").exists()
    # a visitor's request writing rows meanwhile (a token made, a sign-in's sighting) is no worker's:
    # a backup of a site whose web server stays up still goes through (a review)
    from django.contrib.auth.models import User

    from armada_web.accounts.services import create_token

    def visitor_meanwhile(name: str, *args: Any, **options: Any) -> Any:
        done = real(name, *args, **options)
        if name == "dumpdata":
            create_token(user=User.objects.first(), name="meanwhile")
        return done

    Match.objects.update(status="finished")
    monkeypatch.setattr(backups, "call_command", visitor_meanwhile)
    call_command("backup", str(tmp_path / "visited"))
    assert (tmp_path / "visited" / "manifest.json").exists()


def test_a_replace_whose_load_fails_leaves_the_site_as_it_was(deployment, tmp_path):
    """`restore --replace` emptied the database and the storage, then loaded the rows: a load that
    failed left an empty site. On PostgreSQL emptying and loading are one transaction, and the old
    files go only once the new rows are in."""
    import gzip

    from django.db import connection

    from armada_web.ops.backups import _rows
    from armada_web.storage import objectstore
    from tests.support.services import missing

    if connection.vendor != "postgresql":
        missing("a rolled-back schema and load need PostgreSQL (set DATABASE_URL; CI does)")
    folder = tmp_path / "backup"
    call_command("backup", str(folder))
    database = folder / "database.json.gz"
    rows = json.loads(gzip.decompress(database.read_bytes()))
    rows.append({"model": "matches.participant", "pk": 999999, "fields": {"match": 424242, "seat": 1}})  # no match
    database.write_bytes(gzip.compress(json.dumps(rows).encode()))
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["database"].update(size=database.stat().st_size, sha256=hashlib.sha256(database.read_bytes()).hexdigest())
    (folder / "manifest.json").write_text(json.dumps(manifest))
    before, files = _rows(), sorted(objectstore.walk())
    with pytest.raises(Exception):  # (the loader's own error: an integrity error on PostgreSQL)
        call_command("restore", str(folder), replace=True)
    assert _rows() == before and sorted(objectstore.walk()) == files and files
