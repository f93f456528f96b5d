"""Warm slots (issue 12): containers made ahead, one bot each, the same wall, closed off the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from armada_sandbox import BOT_IMAGE, DockerBot, SlotPool, WarmPool, sweep
from armada_sandbox.slots import ANCHOR_UID_BASE
from tests.sandbox.conftest import RUN_ID, run_labels
from tests.sandbox.helpers import container_exists, containers_with
from tests.support.services import missing

pytestmark = pytest.mark.docker

WHO = """
import json, os, sys
for line in sys.stdin:
    print(json.dumps({"uid": os.getuid(), "seed": os.environ.get("ARMADA_BOT_SEED"), "cwd": os.getcwd(),
                      "cpus": sorted(os.sched_getaffinity(0)), "files": sorted(os.listdir("."))}), flush=True)
"""
#: HostConfig fields that make up the wall: a warm container must have each exactly as a cold one.
WALL = ["ReadonlyRootfs", "CapDrop", "CapAdd", "PidsLimit", "Memory", "MemorySwap",
        "MemorySwappiness", "NanoCpus", "Init", "LogConfig", "Privileged", "SecurityOpt", "Tmpfs", "ShmSize",
        "Ulimits", "OomScoreAdj", "MaskedPaths", "ReadonlyPaths", "IpcMode", "PidMode", "UsernsMode"]


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text(textwrap.dedent(WHO))
    (folder / "data.txt").write_text("weights")
    os.chmod(folder, 0o755)
    return folder


def ask(bot: DockerBot) -> dict:
    bot.send(b'{"type": "init", "id": 0}\n')
    line = bot.read_line(time.monotonic() + 20)
    assert line is not None, bot.log()
    return json.loads(line)


def wait_gone(client, container_id: str, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while container_exists(client, container_id) and time.monotonic() < end:
        time.sleep(0.05)
    return not container_exists(client, container_id)


@pytest.fixture
def pool(tmp_path) -> SlotPool:
    return SlotPool(size=8, cpus=sorted(os.sched_getaffinity(0))[:2], lock_dir=tmp_path / "slots")


def test_a_warm_container_has_the_wall_of_a_cold_one(docker_client, tmp_path, pool):
    folder = bot_folder(tmp_path)
    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:
        hot = DockerBot(folder, warm=warm, pool=pool, labels=run_labels())
        cold = DockerBot(folder, warm=None, pool=pool, labels=run_labels())
        hot.bot_seed, cold.bot_seed = 11, 12
        try:
            hot.start()
            cold.start()
            assert hot.was_warm and not cold.was_warm
            answers = {"hot": ask(hot), "cold": ask(cold)}
            inspect = {name: docker_client.api.inspect_container(bot.container_id)
                       for name, bot in (("hot", hot), ("cold", cold))}
            network = inspect["hot"]["HostConfig"]["NetworkMode"]
            assert network.startswith("container:")
            anchor = docker_client.api.inspect_container(network.split(":", 1)[1])
        finally:
            hot.close()
            cold.close()
    for field in WALL:
        assert inspect["hot"]["HostConfig"].get(field) == inspect["cold"]["HostConfig"].get(field), field
    assert "/proc/meminfo" in inspect["hot"]["HostConfig"]["MaskedPaths"]
    # the warm one joins its slot's anchor, which has no network but loopback, and the same wall
    assert inspect["cold"]["HostConfig"]["NetworkMode"] == "none"
    assert anchor["HostConfig"]["NetworkMode"] == "none" and anchor["Config"]["Labels"]["armada.anchor"] == "1"
    for field in ("ReadonlyRootfs", "CapDrop", "SecurityOpt", "MaskedPaths", "Init", "Privileged"):
        assert anchor["HostConfig"].get(field) == inspect["cold"]["HostConfig"].get(field), field
    assert hot.lease is not None and not anchor["Mounts"]
    # the anchor's own uid: its processes never count against the bot's per-uid limits (nproc)
    anchor_uid = ANCHOR_UID_BASE + hot.lease.slot.index
    assert anchor["Config"]["User"] == f"{anchor_uid}:{anchor_uid}"
    for name, bot in (("hot", hot), ("cold", cold)):
        assert bot.lease is not None
        assert inspect[name]["Config"]["User"] == bot.lease.slot.user
        assert inspect[name]["HostConfig"]["CpusetCpus"] == bot.lease.slot.cpuset
        assert {m["Destination"]: m["RW"] for m in inspect[name]["Mounts"]} == {"/bot": False, "/io": False}
        assert answers[name]["uid"] == bot.lease.slot.uid and answers[name]["cwd"] == "/bot"
        assert answers[name]["files"] == ["data.txt", "main.py"]
    assert (answers["hot"]["seed"], answers["cold"]["seed"]) == ("11", "12")
    env = {name: {e.split("=", 1)[0] for e in inspect[name]["Config"]["Env"]} for name in inspect}
    assert env["hot"] | {"ARMADA_BOT_SEED"} == env["cold"]  # the warm one's seed comes through `go`


def test_a_container_serves_one_bot_once_and_the_slot_stays_held(docker_client, tmp_path, pool):
    folder = bot_folder(tmp_path)
    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:
        seen: list[tuple[str, int]] = []
        for _ in range(3):
            bot = DockerBot(folder, warm=warm, pool=pool, labels=run_labels())
            bot.start()
            assert bot.was_warm and bot.lease is not None
            answer = ask(bot)
            assert answer["uid"] == bot.lease.slot.uid
            seen.append((bot.container_id, bot.lease.slot.index))
            began = time.monotonic()
            bot.close(grace=1.0)
            assert time.monotonic() - began < 1.0  # the removal is not waited for
            assert wait_gone(docker_client, bot.container_id)
            # the slot is still this pool's: nobody else can take it while its next container is made
            assert pool.try_slot(bot.lease.slot.index) is None
        assert len({cid for cid, _ in seen}) == 3  # never reused
        assert {index for _, index in seen} <= {2, 3}  # slots 0 and 1 are kept for validation
    assert containers_with(docker_client, {"armada.test": RUN_ID, "armada.warm": "1"}) == []
    assert pool.try_slot(2) is not None and pool.try_slot(3) is not None  # freed by close()


def test_a_pair_plays_on_two_cpus(docker_client, tmp_path, pool):
    if len(pool.cpus) < 2:
        missing("one CPU: both seats share it (CI needs two)")
    folder = bot_folder(tmp_path)
    with WarmPool(2, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:
        bots = [DockerBot(folder, warm=warm, pool=pool, labels=run_labels()) for _ in range(2)]
        try:
            for bot in bots:
                bot.start()
            cpus = [ask(bot)["cpus"] for bot in bots]
        finally:
            for bot in bots:
                bot.close()
    assert all(bot.was_warm for bot in bots)
    assert sorted(cpus) == [[pool.cpus[0]], [pool.cpus[1]]]


def test_the_sweeper_keeps_live_warm_containers_and_removes_a_dead_owners(docker_client, tmp_path, pool):
    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:
        bot = DockerBot(bot_folder(tmp_path), warm=warm, pool=pool)
        bot.start()  # waits until the pool's containers are made
        bot.close()
        assert sweep(0, only={"armada.test": RUN_ID}, now=time.time() + 10**6) == []  # any age: its slot is held
        assert len(containers_with(docker_client, {"armada.test": RUN_ID, "armada.warm": "1"})) >= 1
    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from armada_sandbox import SlotPool, WarmPool
        from armada_sandbox.slots import ANCHOR_UID_BASE
        pool = SlotPool(size=8, cpus={pool.cpus!r}, lock_dir={str(pool.lock_dir)!r})
        warm = WarmPool(1, image={BOT_IMAGE!r}, pool=pool, labels={{"armada.test": {RUN_ID!r}, "armada.case": "dead"}})
        while len([w for w in warm._slots if w.ready.is_set() and not w.failed]) < 2:
            time.sleep(0.05)
        print("warm", flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None and owner.stdout.readline().strip() == "warm"
        left = containers_with(docker_client, {"armada.test": RUN_ID, "armada.case": "dead"})
        assert len(left) == 4  # two bots' containers waiting, and their slots' network anchors
        assert {c.labels["armada.worker"] for c in left} == {str(owner.pid)}  # which process made them
        assert sweep(3600, only={"armada.case": "dead"}) == []  # the owner lives
    finally:
        owner.kill()
        owner.wait(10)
    removed = sweep(3600, only={"armada.test": RUN_ID, "armada.case": "dead"})  # its slots are free now
    assert sorted(removed) == sorted(c.id for c in left)


def test_a_killed_workers_replacement_on_the_same_slots_removes_what_it_left(docker_client, tmp_path, pool):
    """Issue 20: a killed worker child left 4 containers per pair; its replacement takes the same slot
    numbers, so the slots look held: the sweeper still removes them (their holder is dead) and the
    new pool removes them before it makes its own; their work folders go too."""
    from armada_sandbox import sweep_folders

    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from armada_sandbox import SlotPool, WarmPool
        pool = SlotPool(size=8, cpus={pool.cpus!r}, lock_dir={str(pool.lock_dir)!r})
        warm = WarmPool(1, image={BOT_IMAGE!r}, pool=pool, labels={{"armada.test": {RUN_ID!r}, "armada.case": "gone"}})
        while len([w for w in warm._slots if w.ready.is_set() and not w.failed]) < 2:
            time.sleep(0.05)
        print(" ".join(str(w.folder) for w in warm._slots), flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        folders = [Path(f) for f in owner.stdout.readline().split()]
    finally:
        owner.kill()
        owner.wait(10)
    left = containers_with(docker_client, {"armada.test": RUN_ID, "armada.case": "gone"})
    assert len(left) == 4 and all(f.is_dir() for f in folders)
    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:  # the same two slots
        assert sorted(w.lease.slot.index for w in warm._slots) == sorted(int(c.labels["armada.slot"]) for c in left
                                                                          if "armada.anchor" in c.labels)
        for w in warm._slots:
            assert w.ready.wait(60) and not w.failed, w.failed
        assert containers_with(docker_client, {"armada.test": RUN_ID, "armada.case": "gone"}) == []
        sweep_folders(lock_dir=pool.lock_dir)  # (the host's root: a test beside it may sweep them first)
        assert not any(f.exists() for f in folders)
        assert all(w.folder.is_dir() for w in warm._slots)  # the live pool's own stay


def test_a_dead_warm_workers_containers_are_swept_while_its_slots_are_held_again(docker_client, tmp_path, pool):
    """The sweeper alone (no new pool prepared yet): held slots, dead holder: removed at any age."""
    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from armada_sandbox import SlotPool, WarmPool
        pool = SlotPool(size=8, cpus={pool.cpus!r}, lock_dir={str(pool.lock_dir)!r})
        warm = WarmPool(1, image={BOT_IMAGE!r}, pool=pool, labels={{"armada.test": {RUN_ID!r}, "armada.case": "held"}})
        while len([w for w in warm._slots if w.ready.is_set() and not w.failed]) < 2:
            time.sleep(0.05)
        print(" ".join(str(w.lease.slot.index) for w in warm._slots), flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        slots = [int(n) for n in owner.stdout.readline().split()]
    finally:
        owner.kill()
        owner.wait(10)
    leases = [pool.try_slot(n) for n in slots]  # the successor holds them (and has made nothing yet)
    try:
        assert all(leases)
        left = containers_with(docker_client, {"armada.test": RUN_ID, "armada.case": "held"})
        assert len(left) == 4
        assert sorted(sweep(3600, only={"armada.case": "held"})) == sorted(c.id for c in left)
    finally:
        for lease in leases:
            if lease is not None:
                lease.release()


def test_a_warm_container_gone_meanwhile_means_a_cold_start_and_the_slot_stays_the_pools(docker_client, tmp_path,
                                                                                           pool):
    """E.g. an operator's `docker rm -f` or an engine restart: the bot starts cold instead."""
    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:
        limits = DockerBot(bot_folder(tmp_path), warm=None).limits
        broken, other = warm.take(BOT_IMAGE, limits), warm.take(BOT_IMAGE, limits)
        assert broken is not None and other is not None
        broken.container.remove(force=True)
        warm._slots.append(broken)  # back into the pool as if it were still waiting
        bot = DockerBot(tmp_path / "bot", warm=warm, pool=pool, labels=run_labels())
        bot.start()
        try:
            assert not bot.was_warm and bot.lease is not None and bot.lease.slot.index != broken.lease.slot.index
            assert ask(bot)["uid"] == bot.lease.slot.uid
        finally:
            bot.close()
            bot.close()  # twice, as play_match may: nothing of the pool's is freed
        warm.retire(other)
        time.sleep(0.5)
        for lease in (broken.lease, other.lease):  # still the pool's: a new container each
            assert pool.try_slot(lease.slot.index) is None


LISTENER = """
import json, os, socket, sys
tcp = socket.socket()
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", 45678))
tcp.listen()
unix = socket.socket(socket.AF_UNIX)
unix.bind("\\0armada-neighbour")
unix.listen()
for line in sys.stdin:
    print(json.dumps({"listening": True}), flush=True)
"""
PROBE = """
import json, socket, sys


def reach(family, address):
    probe = socket.socket(family)
    probe.settimeout(2)
    try:
        probe.connect(address)
        return "CONNECTED"
    except OSError as exc:
        return type(exc).__name__
    finally:
        probe.close()


for line in sys.stdin:
    print(json.dumps({"tcp": reach(socket.AF_INET, ("127.0.0.1", 45678)),
                      "unix": reach(socket.AF_UNIX, "\\0armada-neighbour")}), flush=True)
"""


def two_bots(tmp_path: Path) -> Path:
    folder = tmp_path / "net"
    folder.mkdir()
    (folder / "listener.py").write_text(textwrap.dedent(LISTENER))
    (folder / "probe.py").write_text(textwrap.dedent(PROBE))
    os.chmod(folder, 0o755)
    return folder


def test_no_bot_reaches_another_through_the_slots_network(docker_client, tmp_path, pool):
    """Bots of a pair have their own namespaces; a slot's next bot finds nothing of the one before."""
    folder = two_bots(tmp_path)
    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:
        listener = DockerBot(folder, "listener.py", warm=warm, pool=pool, labels=run_labels())
        probe = DockerBot(folder, "probe.py", warm=warm, pool=pool, labels=run_labels())
        try:
            listener.start()
            assert ask(listener) == {"listening": True}
            probe.start()
            assert listener.was_warm and probe.was_warm
            assert ask(probe) == {"tcp": "ConnectionRefusedError", "unix": "ConnectionRefusedError"}
        finally:
            probe.close()
            listener.close()
        assert listener.lease is not None
        slot = listener.lease.slot.index
        # the listener's slot again: its next container joins the same anchor, after the listener is gone
        later = None
        for _ in range(4):
            bot = DockerBot(folder, "probe.py", warm=warm, pool=pool, labels=run_labels())
            bot.start()
            answer = ask(bot)
            index = bot.lease.slot.index if bot.lease else -1
            bot.close()
            if index == slot:
                later = answer
                break
        assert later == {"tcp": "ConnectionRefusedError", "unix": "ConnectionRefusedError"}


def test_a_slot_whose_anchor_was_removed_gets_a_new_one(docker_client, tmp_path, pool):
    folder = bot_folder(tmp_path)
    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels(), take_wait=30) as warm:
        first = DockerBot(folder, warm=warm, pool=pool, labels=run_labels())
        first.start()
        assert first.was_warm and first.lease is not None
        slot = first.lease.slot.index
        network = docker_client.api.inspect_container(first.container_id)["HostConfig"]["NetworkMode"]
        docker_client.api.remove_container(network.split(":", 1)[1], force=True)  # e.g. `docker rm -f`
        assert ask(first)["uid"] == first.lease.slot.uid  # its namespace lives on while it runs
        first.close()
        seen = []
        for _ in range(4):  # until the slot comes round again, remade on a new anchor
            bot = DockerBot(folder, warm=warm, pool=pool, labels=run_labels())
            bot.start()
            assert bot.was_warm and bot.lease is not None
            seen.append(bot.lease.slot.index)
            answer = ask(bot)
            renewed = docker_client.api.inspect_container(bot.container_id)["HostConfig"]["NetworkMode"]
            bot.close()
            if seen[-1] == slot:
                assert answer["uid"] == bot.lease.slot.uid and renewed != network
                break
        assert slot in seen


def test_a_pool_that_fails_while_being_made_leaves_no_slot_held_and_no_container(docker_client, tmp_path, pool,
                                                                                 monkeypatch):
    """A pool whose third work folder cannot be made (no room, a folder not the worker's own) raised
    with its six slots still held, and a worker asked again at each bot: held for good, more each
    time. Now it frees its slots and removes the containers it had begun."""
    from armada_sandbox import warm as warm_module

    made = []
    real = warm_module.work_folder

    def failing(lock_dir):
        if len(made) == 2:
            raise OSError(28, "No space left on device")
        made.append(real(lock_dir))
        return made[-1]

    monkeypatch.setattr(warm_module, "work_folder", failing)
    labels = run_labels(**{"armada.case": "fails-while-made"})
    with pytest.raises(OSError, match="No space left"):
        WarmPool(3, image=BOT_IMAGE, pool=pool, labels=labels)
    leases = pool.try_acquire_pairs(3)
    assert leases is not None, "a slot of the failed pool stayed held"
    for lease in leases:
        lease.release()
    assert containers_with(docker_client, labels) == []
    assert not any(folder.exists() for folder in made)


def test_a_slot_lost_to_an_engine_that_would_not_remove_is_back_once_it_does(docker_client, tmp_path, pool,
                                                                             monkeypatch, capsys):
    """A slot whose retired container the engine would not remove (an outage) was out of use for the
    worker's whole life: an outage could leave a worker with no warm slot, all held. Now it is tried
    again until its container is gone, then prepared and used like the others."""
    from armada_sandbox import warm as warm_module

    monkeypatch.setattr(warm_module, "REMOVE_PAUSES_S", (0.05,))
    monkeypatch.setattr(warm_module, "LOST_RETRY_S", 0.3)
    real, refusals, stuck = warm_module.remove_container, [4], []  # dispose, its one retry, two later tries

    def engine_in_trouble(container):
        if refusals[0] > 0 and container is not None and container.id in stuck:
            refusals[0] -= 1
            return False
        return real(container)

    with WarmPool(1, image=BOT_IMAGE, pool=pool, labels=run_labels()) as warm:
        limits = DockerBot(bot_folder(tmp_path), warm=None).limits
        taken = warm.take(BOT_IMAGE, limits, wait=60)
        assert taken is not None and taken.container is not None
        stuck.append(taken.container.id)
        monkeypatch.setattr(warm_module, "remove_container", engine_in_trouble)
        warm.retire(taken)
        deadline = time.monotonic() + 30
        while taken.lease not in warm._lost:
            assert time.monotonic() < deadline, "the slot was never counted as lost"
            time.sleep(0.05)
        assert pool.try_slot(taken.lease.slot.index) is None  # held meanwhile: nobody else's container there
        while warm._lost or refusals[0]:
            assert time.monotonic() < deadline + 30, "the lost slot never came back"
            time.sleep(0.1)
        assert not container_exists(docker_client, taken.container.id)
        again = warm.take(BOT_IMAGE, limits, wait=60)
        other = warm.take(BOT_IMAGE, limits, wait=60)
        assert again is not None and other is not None  # both slots of the pair serve again
        assert taken.lease.slot.index in {again.lease.slot.index, other.lease.slot.index}
        warm.retire(again)
        warm.retire(other)
    assert "is in use again" in capsys.readouterr().err
    assert containers_with(docker_client, {"armada.test": RUN_ID, "armada.warm": "1"}) == []
