"""The sweeper removes only labelled bot containers older than the longest match."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from armada_sandbox import DockerBot, sweep
from armada_sandbox.sweeper import container_age
from tests.sandbox.conftest import RUN_ID, run_labels
from tests.sandbox.helpers import container_exists

pytestmark = pytest.mark.docker

SLEEPER = "import time\ntime.sleep(600)\n"


def sleeper_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755, exist_ok=True)
    (folder / "main.py").write_text(SLEEPER)
    return folder
#: Sweep only this run's containers: other matches may be running on the same engine.
OURS = {"armada.test": RUN_ID}


def test_sweep_removes_old_containers_and_keeps_young_ones(docker_client, tmp_path: Path):
    folder = sleeper_dir(tmp_path)
    young = DockerBot(folder, labels=run_labels())
    stale = DockerBot(folder, labels=run_labels())
    # A container without the sandbox label (not ours to manage) is never touched.
    other = docker_client.containers.create("armada/bot:latest", ["sleep", "600"], network_mode="none",
                                            labels=OURS)
    try:
        young.start()
        stale.start()
        # Nothing is older than an hour now: nothing goes.
        assert sweep(3600, client=docker_client, only=OURS) == []
        assert container_exists(docker_client, young.container_id)
        # Seen from two hours later both are orphans; the unlabelled one stays.
        removed = sweep(3600, now=time.time() + 7200, client=docker_client, only=OURS)
        assert set(removed) == {young.container_id, stale.container_id}
        assert not container_exists(docker_client, young.container_id)
        assert not container_exists(docker_client, stale.container_id)
        assert container_exists(docker_client, other.id)
    finally:
        young.close(grace=0)
        stale.close(grace=0)
        other.remove(force=True)


def test_a_container_whose_slot_is_free_is_an_orphan_at_any_age(docker_client, tmp_path: Path):
    """Issue 12: a slot is held from before its container exists until after it is removed, so a
    container whose slot nobody holds (its worker died: the kernel dropped the lock) is swept young."""
    folder = sleeper_dir(tmp_path)
    live, orphan = DockerBot(folder, labels=run_labels()), DockerBot(folder, labels=run_labels())
    try:
        live.start()
        orphan.start()
        assert orphan.lease is not None
        orphan.lease.release()  # as when its process dies
        assert sweep(3600, client=docker_client, only=OURS) == [orphan.container_id]
        assert container_exists(docker_client, live.container_id)
    finally:
        live.close(grace=0)
        orphan.close(grace=0)


def test_close_after_sweep_is_safe(docker_client, tmp_path: Path):
    bot = DockerBot(sleeper_dir(tmp_path), labels=run_labels())
    bot.start()
    assert sweep(0, now=time.time() + 10, client=docker_client, only=OURS) == [bot.container_id]
    started = time.monotonic()
    bot.close(grace=0)  # the container is gone already: close still returns promptly
    assert time.monotonic() - started < 10
    assert not container_exists(docker_client, bot.container_id)


class _Labelled:
    def __init__(self, labels):
        self.labels = labels


def test_container_age_reads_the_label():
    assert container_age(_Labelled({"armada.created": "1000"}), 1600.0) == 600.0
    assert container_age(_Labelled({"armada.created": "soon"}), 1600.0) is None
    assert container_age(_Labelled({}), 1600.0) is None


def test_negative_age_rejected():
    with pytest.raises(ValueError, match="max_age_s"):
        sweep(-1, client=object())



def _dead_holders_container(tmp_path: Path, lock_dir: Path, case: str) -> tuple[str, Path]:
    """A process takes slot 0 of a pool in `lock_dir`, starts a bot in it, and is killed (SIGKILL):
    returns the container it left and its work folder (the FIFOs)."""
    import subprocess
    import sys
    import textwrap

    folder = sleeper_dir(tmp_path)
    script = textwrap.dedent(f"""
        import time
        from armada_sandbox import DockerBot, SlotPool
        pool = SlotPool(size=2, cpus=[0], lock_dir={str(lock_dir)!r})
        bot = DockerBot({str(folder)!r}, labels={{"armada.test": {RUN_ID!r}, "armada.case": {case!r}}}, pool=pool)
        bot.start()
        print(bot.container_id, bot._work, flush=True)
        time.sleep(600)
    """)
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        container_id, work = owner.stdout.readline().split()
    finally:
        owner.kill()
        owner.wait(10)
    return container_id, Path(work)


def test_a_dead_holders_container_goes_at_once_though_its_slot_has_a_new_holder(docker_client, tmp_path: Path):
    """Issue 20: a killed worker's replacement takes the same slot numbers; the sweeper still sees that
    the container's holder is gone and removes it at once (it kept it while the slot was held)."""
    from armada_sandbox import SlotPool, sweep_folders

    lock_dir = tmp_path / "slots"
    left, work = _dead_holders_container(tmp_path, lock_dir, "dead-holder")
    successor = SlotPool(size=2, cpus=[0], lock_dir=lock_dir).try_slot(0)  # the replacement's slot 0
    assert successor is not None
    try:
        assert container_exists(docker_client, left) and work.is_dir()
        assert sweep(3600, client=docker_client, only={"armada.case": "dead-holder"}) == [left]
        assert not container_exists(docker_client, left)
        sweep_folders(lock_dir=lock_dir)  # (the host's root: a test beside it may sweep it first)
        assert not work.exists()  # its FIFOs' folder too
    finally:
        successor.release()


def test_the_next_holder_of_a_slot_removes_what_a_dead_holder_left_before_its_own_bot_starts(docker_client,
                                                                                            tmp_path: Path):
    """Without any sweep: a bot never shares its slot's uid with a container of an earlier lease."""
    from armada_sandbox import SlotPool

    lock_dir = tmp_path / "slots"
    left, _work = _dead_holders_container(tmp_path, lock_dir, "next-holder")
    lease = SlotPool(size=2, cpus=[0], lock_dir=lock_dir).try_slot(0)
    assert lease is not None and container_exists(docker_client, left)
    bot = DockerBot(sleeper_dir(tmp_path), labels=run_labels(), slot=lease)
    try:
        bot.start()
        assert not container_exists(docker_client, left)
        assert container_exists(docker_client, bot.container_id)
    finally:
        bot.close(grace=0)
