"""A match worker in the application image, on this test's database and queues, drives the host's
Docker engine through the mounted socket and runs the bots from the bot image there, in the
host's own sandbox slots: the host sees the slots its warm pool holds as taken (the lock folder is
the host's, mounted at the same path), the match is played and counts once, and a stopped worker
container removes its warm containers and frees its slots."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from tests.support.app_image import APP_IMAGE, require_app_image
from tests.support.fixtures import _drop_queue, database_env
from tests.support.services import require_redis

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]


def _same_path(*folders: Path | str) -> dict[str, dict[str, str]]:
    return {str(folder): {"bind": str(folder), "mode": "rw"} for folder in folders}


def _warm_of(client, slot_dir: Path, sandbox: Path) -> list[dict]:
    """The worker's warm bot containers (not their anchors): in the host's slot folder, their files
    under the worker's sandbox folder (a plain listing: other tests' warm containers share the folder)."""
    listed = client.api.containers(all=True, filters={"label": ["armada.warm=1", f"armada.slots={slot_dir}"]})
    return [entry for entry in listed if "armada.anchor" not in (entry.get("Labels") or {})
            and any(str(mount.get("Source", "")).startswith(f"{sandbox}/") for mount in entry.get("Mounts") or [])]


def test_a_worker_container_plays_a_match_on_the_host_engine_in_the_hosts_slots(
        transactional_db, valid_version, make_user, settings, armada, tmp_path):
    from armada_sandbox.slots import SlotPool, default_dir
    from armada_web.matches.models import Match
    from armada_web.matches.services import create_match

    require_redis()
    client = require_app_image()
    run = uuid.uuid4().hex[:8]
    config = armada(matches_queue=f"test-matches-{run}", challenges_queue=f"test-challenges-{run}")
    slot_dir = default_dir()  # the host's lock folder: every DockerBot of this machine uses it
    probe = SlotPool(size=1, cpus=[0], lock_dir=slot_dir).try_slot(0)  # makes the folder on its first use
    if probe is not None:
        probe.release()
    sandbox = tmp_path / "sandbox"  # the worker's TMPDIR: same path here and in the container
    sandbox.mkdir()
    db = database_env()
    folders = [slot_dir, sandbox, tmp_path]
    if db.get("ARMADA_SQLITE_PATH"):
        folders.append(Path(db["ARMADA_SQLITE_PATH"]).parent)
    env = {
        **db, "REDIS_URL": settings.REDIS_URL, "ARMADA_DATA_DIR": str(tmp_path), "DEBUG": "true",
        "SECRET_KEY": "worker-container-test-" + run, "CACHE_URL": "locmem://",
        "ARMADA_MATCHES_QUEUE": config.matches_queue, "ARMADA_CHALLENGES_QUEUE": config.challenges_queue,
        "ARMADA_GALAXY_MATCH_CONFIG": '{"max_turns": 30}',
        "ARMADA_SANDBOX_DIR": str(sandbox), "ARMADA_SANDBOX_SLOT_DIR": str(slot_dir),
        "ARMADA_SANDBOX_WARM_PAIRS": "1", "ARMADA_SANDBOX_PURPOSE": "match",
        "ARMADA_WORKER_NAME": f"test-{run}", "ARMADA_WORKER_CONCURRENCY": "1",
        # the test's own user (its folders are its own); the compose test runs the image's user
        "ARMADA_APP_UID": str(os.getuid()),
    }
    first = valid_version(make_user("alice"), "alpha")
    second = valid_version(make_user("bob"), "bravo", starter="random")
    container = client.containers.run(
        APP_IMAGE, ["worker", "-Q", f"{config.challenges_queue},{config.matches_queue}",
                    "--without-heartbeat", "--without-gossip", "--without-mingle"],
        detach=True, network_mode="host", environment=env, labels={"armada.test": f"worker-{run}"},
        volumes={"/var/run/docker.sock": {"bind": "/var/run/docker.sock", "mode": "rw"}, **_same_path(*folders)})
    try:
        deadline = time.monotonic() + 120
        while " ready." not in (logs := container.logs().decode(errors="replace")):
            container.reload()
            assert container.status == "running" and time.monotonic() < deadline, logs[-3000:]
            time.sleep(0.5)
        # its warm pool: a pair of the host's slots, held by the container's process, so taken here
        # (the tests running in parallel hold the host's slots too: the pool waits for a free pair)
        deadline = time.monotonic() + 240
        while len(warm := _warm_of(client, slot_dir, sandbox)) < 2:
            assert time.monotonic() < deadline, container.logs().decode(errors="replace")[-3000:]
            time.sleep(0.5)
        held = sorted(int(entry["Labels"]["armada.slot"]) for entry in warm)
        host_pool = SlotPool(lock_dir=slot_dir)
        for index in held:
            taken = host_pool.try_slot(index)
            if taken is not None:
                taken.release()  # (not kept for the rest of the run)
            assert taken is None, f"slot {index} of the container's pool is free on the host"

        match = create_match(game="galaxy", first=first, second=second)
        deadline = time.monotonic() + 180
        while (status := Match.objects.get(pk=match.pk).status) not in ("finished", "void", "failed"):
            assert time.monotonic() < deadline, container.logs().decode(errors="replace")[-3000:]
            time.sleep(0.5)
        match.refresh_from_db()
        logs = container.logs().decode(errors="replace")
        assert status == "finished", (match.reason, logs[-3000:])
        assert match.attempts == 1 and match.turns and match.replay.name
        assert (tmp_path / "private" / match.replay.name).is_file()  # the worker's storage is the site's
        assert f"match {match.pk} played; sandbox starts: seat 1 warm, seat 2 warm" in logs, logs[-3000:]

        container.stop(timeout=60)  # Celery's warm shutdown: the pool removes its containers
        assert container.wait(timeout=60)["StatusCode"] == 0
        deadline = time.monotonic() + 30
        while _warm_of(client, slot_dir, sandbox):
            assert time.monotonic() < deadline, "the stopped worker left warm containers"
            time.sleep(0.5)
        # the host's slots are shared with the other tests running in parallel: one of them may take
        # a freed slot at once, so each slot must be seen free at least once (not free at one instant)
        for index in held:
            deadline = time.monotonic() + 120
            while (lease := host_pool.try_slot(index)) is None:
                assert time.monotonic() < deadline, f"slot {index} still held after the worker stopped"
                time.sleep(0.2)
            lease.release()
    finally:
        container.remove(force=True, v=True)
        from armada_sandbox.sweeper import sweep

        sweep(only={"armada.slots": str(slot_dir)}, max_age_s=3600)  # orphans of its (now free) slots
        for queue in (config.matches_queue, config.challenges_queue):
            _drop_queue(settings.REDIS_URL, queue)
