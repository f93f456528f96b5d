"""The slot pool without Docker: distinct uids, CPUs lowest first, flock across processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from armada_sandbox.slots import SLOT_UID_BASE, Lease, SlotPool, SlotsBusy


def test_slots_have_their_own_uid_and_cpu_and_are_taken_lowest_first(tmp_path):
    pool = SlotPool(size=4, cpus=[0, 1], lock_dir=tmp_path)
    leases = [pool.acquire(timeout=0) for _ in range(4)]
    assert [lease.slot.uid for lease in leases] == [SLOT_UID_BASE + n for n in range(4)]
    assert [lease.slot.cpuset for lease in leases] == ["0", "1", "0", "1"]
    assert leases[0].slot.user == f"{SLOT_UID_BASE}:{SLOT_UID_BASE}"
    with pytest.raises(SlotsBusy):
        pool.acquire(timeout=0.1)
    leases[1].release()
    leases[1].release()  # idempotent
    again = pool.acquire(timeout=0)
    assert again.slot.index == 1
    for lease in [*leases, again]:
        lease.release()


def test_a_slot_on_a_given_cpu(tmp_path):
    pool = SlotPool(size=4, cpus=[0, 1], lock_dir=tmp_path)
    with pool.acquire(cpu=1) as first, pool.acquire(cpu=1) as second:
        assert (first.slot.index, second.slot.index) == (1, 3)


def test_a_slot_held_by_another_process_is_busy_and_free_once_it_dies(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from armada_sandbox.slots import SlotPool
        lease = SlotPool(size=1, cpus=[0], lock_dir={str(tmp_path)!r}).acquire(timeout=5)
        print("held", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        pool = SlotPool(size=1, cpus=[0], lock_dir=tmp_path)
        assert pool.try_acquire() is None
    finally:
        holder.kill()
        holder.wait(5)
    with pool.acquire(timeout=2) as lease:  # the dead owner's lock went with it
        assert lease.slot.index == 0


def test_the_first_pair_is_kept_for_validation(tmp_path):
    """Issue 12: a busy ladder never takes the validation pair; validation may use any slot."""
    pool = SlotPool(size=8, cpus=[0, 1], lock_dir=tmp_path)
    matches = [pool.acquire(timeout=0) for _ in range(6)]
    assert [lease.slot.index for lease in matches] == [2, 3, 4, 5, 6, 7]
    with pytest.raises(SlotsBusy, match="6 sandbox slots for match games"):
        pool.acquire(timeout=0.1)
    first, second = pool.acquire(timeout=0, purpose="validation"), pool.acquire(timeout=0, purpose="validation")
    assert (first.slot.index, second.slot.index) == (0, 1)
    assert (first.slot.cpuset, second.slot.cpuset) == ("0", "1")  # a validation game's two seats on two CPUs
    matches[0].release()
    third = pool.acquire(timeout=0, purpose="validation")
    assert third.slot.index == 2
    with pytest.raises(ValueError, match="unknown slot purpose"):
        pool.try_acquire(purpose="ranked")
    assert SlotPool(size=4, cpus=[0, 1], lock_dir=tmp_path / "small").reserved() == 0
    for lease in [*matches, first, second, third]:
        lease.release()


def test_each_lease_has_its_own_id_and_names_its_holder_which_others_see_alive_until_it_dies(tmp_path):
    """Issue 20: a container belongs to a lease (the holder's process and its start time), not to a
    slot number: another process sees whether the holder lives, whatever slot its successor takes."""
    from armada_sandbox.slots import holder, holder_alive, process_start, remove_dead_holders

    pool = SlotPool(size=2, cpus=[0], lock_dir=tmp_path)
    with pool.acquire(timeout=0) as first:
        first_id, path = first.id, first.holder_path
    with pool.acquire(timeout=0) as again:  # the same slot again: another lease, the same holder
        assert again.slot.index == 0 and again.id != first_id and again.holder_path == path
    assert f"-{os.getpid()}-{process_start()}-" in path.name  # who: host, pid, start time
    assert holder(tmp_path).path == path and holder_alive(path) is True
    script = textwrap.dedent(f"""
        import sys, time
        from armada_sandbox.slots import SlotPool
        lease = SlotPool(size=2, cpus=[0], lock_dir={str(tmp_path)!r}).acquire(timeout=5)
        print(lease.holder_path, flush=True)
        time.sleep(60)
    """)
    other = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None
        theirs = Path(other.stdout.readline().strip())
        assert theirs != path and holder_alive(theirs) is True
        assert remove_dead_holders(tmp_path) == 0  # both live: nothing goes
    finally:
        other.kill()
        other.wait(5)
    assert holder_alive(theirs) is False  # the kernel dropped its lock with the process
    assert holder_alive(path) is True
    assert remove_dead_holders(tmp_path) == 1 and not theirs.exists() and path.exists()
    assert holder_alive(tmp_path / "holder-gone.lock") is False  # a holder file removed: its process is gone
    assert holder_alive(tmp_path / "slot-0.lock") is None  # not a holder file: cannot tell


def test_a_forked_child_is_a_holder_of_its_own(tmp_path):
    """Celery's prefork children are forked: each gets its own holder; the parent's stays locked."""
    from armada_sandbox.slots import holder, holder_alive

    parent = holder(tmp_path).path
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: tell the parent its holder file, then end without cleaning up
        os.close(read)
        os.write(write, str(holder(tmp_path).path).encode())
        os._exit(0)
    os.close(write)
    child = Path(os.read(read, 4096).decode())
    os.close(read)
    os.waitpid(pid, 0)
    assert child != parent
    assert holder_alive(parent) is True and holder_alive(child) is False


def test_a_worker_of_another_uid_shares_the_lock_files():
    """A worker container (uid 10100) and the host's root workers share one lock folder: each locks
    the files the other made (read-only descriptors; no O_CREAT on another's file in a sticky folder)."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    import armada_sandbox.slots

    python = "/usr/bin/python3"  # the venv's interpreter may sit in a folder only root may enter
    if os.getuid() != 0 or not os.access(python, os.X_OK):
        from tests.support.services import missing

        missing("needs root (to run a process as another uid) and /usr/bin/python3")  # (CI runs as root)
    base = Path(tempfile.mkdtemp(prefix="armada-slot-uid-"))  # pytest's tmp_path is root's alone
    try:
        os.chmod(base, 0o755)  # (the import lists it)
        shutil.copy(armada_sandbox.slots.__file__, base / "slots.py")  # the module alone: standard library only
        os.chmod(base / "slots.py", 0o644)
        folder = base / "slots"
        pool = SlotPool(size=2, cpus=[0], lock_dir=folder)
        mine = pool.acquire(timeout=0)  # root makes slot-0.lock (0644) and the sticky folder
        script = textwrap.dedent(f"""
            import os, sys
            sys.path.insert(0, {str(base)!r})
            from slots import SlotPool
            pool = SlotPool(size=2, cpus=[0], lock_dir={str(folder)!r})
            lease = pool.try_acquire()
            print(os.getuid(), lease.slot.index, oct(os.stat({str(folder)!r} + "/slot-1.lock").st_mode & 0o777))
            lease.release()
            lease = pool.try_acquire()
            print(lease.slot.index)
        """)
        run = {"cwd": "/", "user": 10100, "group": 10100, "capture_output": True, "text": True, "timeout": 30}
        first = subprocess.run([python, "-c", script], **run)
        assert first.returncode == 0, first.stderr
        assert first.stdout.split() == ["10100", "1", "0o644", "1"]  # slot 0 is root's: busy, not an error
        mine.release()
        other = subprocess.run([python, "-c", script.replace("lease.release()\n", "")], **run)
        assert other.returncode == 0, other.stderr
        assert other.stdout.split()[1] == "0"  # root's file, free again: locked by the other uid
        with pool.acquire(timeout=0) as lease:  # and root locks the file uid 10100 made
            assert lease.slot.index == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


LEAVER = """
import os, sys
from armada_sandbox import close_process_pool
from armada_sandbox.slots import SlotPool
pool = SlotPool(size=4, cpus=[0], lock_dir=sys.argv[1])
assert pool.try_slot(0) is None  # the test's: held
with pool.acquire(timeout=5) as lease:
    print(lease.slot.index, lease.holder_path, flush=True)
if sys.argv[2] == "shutdown":  # as a Celery worker process stops (worker_process_shutdown), then no atexit
    close_process_pool()
    os._exit(0)
"""


@pytest.mark.parametrize("how", ["shutdown", "exit"])
def test_a_stopping_process_removes_its_lock_files_and_keeps_a_live_holders(tmp_path, how):
    """Compose `down` left slot lock files: a process that stops (a worker process's shutdown, or
    any exit) removes its holder file and the slot lock files nobody holds, never a held one."""
    from armada_sandbox.slots import holder

    pool = SlotPool(size=4, cpus=[0], lock_dir=tmp_path)
    with pool.acquire(timeout=0) as mine:
        assert mine.slot.index == 0
        pool.try_slot(3).release()  # a lock file nobody holds any more
        ours = holder(tmp_path).path
        done = subprocess.run([sys.executable, "-c", LEAVER, str(tmp_path), how], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        index, theirs = done.stdout.split()
        assert index == "1" and Path(theirs) != ours
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["slot-0.lock", ours.name])
        assert pool.try_slot(0) is None  # still held: its file was never replaced
    again = pool.acquire(timeout=0)  # the removed files are made again when wanted
    assert again.slot.index == 0 and (tmp_path / "slot-0.lock").exists()
    again.release()


def test_a_lock_file_removed_between_open_and_lock_is_not_held_twice(tmp_path, monkeypatch):
    """A stopping process removes a free lock file while another has it open, not yet locked: the
    other locks the file now in the folder, so a third one can never lock the same slot too."""
    import armada_sandbox.slots as slots

    opened = slots.open_lock_file
    calls = []

    def open_then_removed(path):
        fd = opened(path)
        calls.append(path)
        if len(calls) == 1:
            assert slots.remove_free_lock_files(tmp_path) == 1  # as `leave()` of another process
        return fd

    monkeypatch.setattr(slots, "open_lock_file", open_then_removed)
    pool = SlotPool(size=1, cpus=[0], lock_dir=tmp_path)
    (tmp_path / "slot-0.lock").touch()
    lease = pool.try_slot(0)
    assert lease is not None and len(calls) == 2
    monkeypatch.setattr(slots, "open_lock_file", opened)
    assert pool.try_slot(0) is None  # the file in the folder is the one locked
    lease.release()


def test_pairs_are_taken_all_at_once_and_a_waiting_pool_holds_nothing(tmp_path):
    """A warm pool waiting for its pairs holds no slot meanwhile (CI on 8115990: a pool taking its
    slots one by one held half the host while waiting for the rest, and the workers holding the
    rest waited for its half: every game stopped for minutes)."""
    pool = SlotPool(size=10, cpus=[0, 1], lock_dir=tmp_path)
    blocker = pool.try_slot(8)  # CPU 0: slots 2, 4, 6 free, 8 taken
    assert blocker is not None
    got: list[list[Lease]] = []
    waiting = threading.Thread(target=lambda: got.append(pool.acquire_pairs(4, timeout=20)))
    waiting.start()
    time.sleep(0.5)
    # while it waits, every other slot can be had (nothing is held halfway)
    others = [pool.acquire(timeout=5) for _ in range(7)]  # (its tries hold them for microseconds)
    assert sorted(lease.slot.index for lease in others) == [2, 3, 4, 5, 6, 7, 9]
    for lease in others:
        lease.release()
    assert not got
    blocker.release()
    waiting.join(20)
    assert [lease.slot.index for lease in got[0]] == [2, 3, 4, 5, 6, 7, 8, 9]
    assert sorted(lease.slot.cpuset for lease in got[0]) == ["0"] * 4 + ["1"] * 4
    with pytest.raises(SlotsBusy, match=r"4 of the 8 sandbox slots for match games .* not free together within 0 s"):
        pool.acquire_pairs(2, timeout=0)
    for lease in got[0]:
        lease.release()
    again = pool.try_acquire_pairs(4)
    assert again is not None  # (all free again: released, not leaked)
    for lease in again:
        lease.release()
    third = pool.try_slot(3)
    assert third is not None
    pair = pool.acquire_pairs(1, timeout=0)  # its two bots on two CPUs: slot 2 (CPU 0), then 5 (CPU 1), not 4
    assert [(lease.slot.index, lease.slot.cpuset) for lease in pair] == [(2, "0"), (5, "1")]
    for lease in [*pair, third]:
        lease.release()


def test_a_workers_pool_leaves_a_pair_free_for_cold_starts(tmp_path, monkeypatch, capsys):
    """Two `make up`s on one 2-core host held all 16 slots in warm pools (2 + 6 each): a bot that
    then started cold waited 30 s for a slot and its match was played again later. A worker's pool
    now takes as many pairs as leave one pair free, fewer than asked if it must, and says so."""
    from armada_sandbox import warm

    pool = SlotPool(size=10, cpus=[0, 1], lock_dir=tmp_path)  # 8 slots for match games
    other = pool.try_acquire_pairs(1)  # another instance's pool holds a pair
    assert other is not None
    assert pool.try_acquire_pairs(3, spare=1) is None  # would leave none free: holds nothing
    made: list[tuple[int, list[Lease]]] = []

    class Pool:  # what WarmPool does with its slots, without containers
        def __init__(self, pairs: int, **options: object) -> None:
            leases = pool.acquire_pairs(pairs, 0, purpose="match", spare=int(str(options["spare"])))
            made.append((pairs, leases))

    monkeypatch.setenv(warm.PAIRS_VARIABLE, "3")
    monkeypatch.setattr(warm, "WarmPool", Pool)
    monkeypatch.setattr(warm, "_process_pool", None)
    monkeypatch.setattr(warm, "_busy_until", [0.0])
    assert warm.process_pool() is not None
    assert [pairs for pairs, _leases in made] == [2]
    assert "2 of 3 warm slot pairs" in capsys.readouterr().err
    spare = pool.try_acquire_pairs(1)  # the pair left for cold starts
    assert spare is not None and pool.try_acquire(purpose="match") is None
    for lease in [*spare, *made[0][1], *other]:
        lease.release()
    monkeypatch.setattr(warm, "_process_pool", None)
    held = [pool.try_slot(index) for index in range(2, 8)]  # three pairs held elsewhere: only one left
    assert warm.process_pool() is None and len(made) == 1  # not even one pair with one left free: cold
    for lease in held:
        assert lease is not None
        lease.release()


def test_pairs_go_where_two_cpus_have_the_room(tmp_path):
    """On four CPUs, the lowest free slot's CPU may have no room for more: other CPUs are tried (the
    first version gave up, and its worker started every bot cold)."""
    pool = SlotPool(size=16, cpus=[0, 1, 2, 3], lock_dir=tmp_path)
    held = [pool.try_slot(index) for index in (6, 10, 14, 3, 7, 11, 15)]  # CPU 2 keeps slot 2 only; CPU 3 none
    leases = pool.acquire_pairs(3, timeout=0)
    assert sorted((lease.slot.index, lease.slot.cpuset) for lease in leases) == [
        (4, "0"), (5, "1"), (8, "0"), (9, "1"), (12, "0"), (13, "1")]
    for lease in [*leases, *held]:
        assert lease is not None
        lease.release()


def test_a_failure_while_taking_slots_leaves_none_held(tmp_path, monkeypatch):
    """An error midway (no descriptor left, say) frees what was taken already: a lease nobody
    releases stays locked until its process ends."""
    from armada_sandbox import slots

    pool = SlotPool(size=8, cpus=[0, 1], lock_dir=tmp_path)
    real, calls = SlotPool.try_acquire, []

    def third_fails(self, cpu=None, purpose="match"):
        calls.append(cpu)
        if len(calls) == 3:
            raise OSError(24, "Too many open files")
        return real(self, cpu, purpose)

    monkeypatch.setattr(SlotPool, "try_acquire", third_fails)
    with pytest.raises(OSError, match="Too many open files"):
        pool.try_acquire_pairs(2)
    monkeypatch.setattr(SlotPool, "try_acquire", real)
    monkeypatch.setattr(slots, "holder", lambda lock_dir=None: (_ for _ in ()).throw(OSError(24, "Too many")))
    with pytest.raises(OSError):
        pool.try_slot(2)  # locked, then its lease could not be made
    monkeypatch.undo()
    every = [pool.try_slot(index) for index in range(8)]
    assert all(lease is not None for lease in every), "a slot stayed locked"
    for lease in every:
        assert lease is not None
        lease.release()


def test_a_worker_whose_pool_cannot_be_made_starts_cold_and_asks_again_later(monkeypatch, capsys):
    """Any failure making a worker's pool (not only busy slots) means cold starts, said once on
    stderr, and no new try at each bot (each try held slots before it failed)."""
    from armada_sandbox import warm

    tries: list[int] = []

    def broken(pairs, **options):
        tries.append(pairs)
        raise RuntimeError("can't start new thread")

    monkeypatch.setenv(warm.PAIRS_VARIABLE, "3")
    monkeypatch.setattr(warm, "WarmPool", broken)
    monkeypatch.setattr(warm, "_process_pool", None)
    monkeypatch.setattr(warm, "_busy_until", [0.0])
    assert warm.process_pool() is None and warm.process_pool() is None
    assert tries == [3]
    assert "cannot make this worker's pool, its bots start cold: can't start new thread" in capsys.readouterr().err
    warm._busy_until[0] = 0.0  # a minute later (BUSY_RETRY_S)
    assert warm.process_pool() is None and tries == [3, 3]


def test_the_spare_pair_is_two_free_slots_and_a_failing_probe_holds_nothing(tmp_path, monkeypatch):
    """A review: the spare was a pair on two CPUs, where a bot starting cold takes any free slot
    (two free on one CPU were refused as no room); and an error while probing for it left the
    pair's slots locked for the process's life."""
    from armada_sandbox import slots

    pool = SlotPool(size=8, cpus=[0, 1], lock_dir=tmp_path)  # match slots 2, 4, 6 (CPU 0), 3, 5, 7 (CPU 1)
    held = [pool.try_slot(3), pool.try_slot(5)]
    leases = pool.try_acquire_pairs(1, spare=1)  # 2 and 7; 4 and 6 stay free, both on CPU 0
    assert leases is not None and sorted(lease.slot.index for lease in leases) == [2, 7]
    for lease in [*leases, *held]:
        assert lease is not None
        lease.release()
    real = slots.open_lock_file
    opened = [0]

    def failing(path):
        opened[0] += 1
        if opened[0] > 2:
            raise OSError(24, "Too many open files")
        return real(path)

    monkeypatch.setattr(slots, "open_lock_file", failing)
    with pytest.raises(OSError, match="Too many open files"):
        pool.try_acquire_pairs(1, spare=1)  # the pair taken, then its probe fails
    monkeypatch.undo()
    every = [pool.try_slot(index) for index in range(8)]
    assert all(lease is not None for lease in every), "a slot stayed locked"


def test_free_slots_are_counted_without_taking_any(tmp_path):
    """`SlotPool.free` (what `make up` checks before starting workers): held slots are not free,
    and counting takes nothing, so a holder keeps its slot and a free slot stays free."""
    pool = SlotPool(size=6, cpus=[0, 1], lock_dir=tmp_path)
    assert pool.free("validation") == list(range(6)) and pool.free() == [2, 3, 4, 5]  # no lock file yet
    held = [pool.try_slot(0), pool.try_slot(3)]
    assert pool.free("validation") == [1, 2, 4, 5] and pool.free() == [2, 4, 5]
    assert pool.try_slot(3) is None  # still its holder's
    taken = pool.try_slot(2)  # a counted free slot can be taken at once
    assert taken is not None
    for lease in [*held, taken]:
        assert lease is not None
        lease.release()
    assert pool.free() == [2, 3, 4, 5]


def _hold_slots(lock_dir: Path, indexes: list[int]) -> subprocess.Popen[str]:
    """Another worker's process holding `indexes` of the host's slots until killed."""
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from armada_sandbox.slots import SlotPool
        pool = SlotPool(lock_dir={str(lock_dir)!r})
        leases = [pool.try_slot(index) for index in {indexes!r}]
        print("held" if all(leases) else "missed", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


@pytest.mark.parametrize(("left", "outcome"), [(None, "quiet"), (8, "warns"), (4, "refuses")])
def test_make_up_checks_the_free_slots_before_starting_workers(tmp_path, left, outcome):
    """A third `make up` on a 2-core host found every slot held by the other two's warm pools (its
    validations failed after 30 s, its demo bots never played): `check_slots` (infra/lib.sh) now
    refuses to start when no pair is free beyond the one every worker leaves for cold starts, and
    warns when its workers' warm pairs will not all fit."""
    pool = SlotPool(lock_dir=tmp_path / "slots")
    first = pool.reserved()
    assert pool.size >= 8, pool.size  # (SLOTS_PER_CORE a core: every host has room for the cases)
    held = 0 if left is None else pool.size - left  # all but `left` slots held by the other instances
    holder = _hold_slots(tmp_path / "slots", list(range(first, first + held))) if held else None
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "ARMADA_SANDBOX_SLOT_DIR": str(tmp_path / "slots"), "ARMADA_DATA_DIR": str(tmp_path / "data"),
           "VENV": str(Path(sys.executable).parent.parent)}
    free = pool.size - held
    want = free + 1 if outcome == "warns" else free  # one slot more than is free: a warning
    try:
        done = subprocess.run(["bash", "-c", f'. infra/lib.sh; PY={sys.executable}; check_slots {want}; echo started'],
                              cwd=root, env=env, capture_output=True, text=True, timeout=60)
    finally:
        if holder is not None:
            holder.kill()
            holder.wait(5)
    if outcome == "refuses":
        assert done.returncode == 1 and "started" not in done.stdout
        assert f"only {free - first} of this machine's {pool.size} sandbox slots for matches are free" in done.stderr
        assert "MATCH_WARM_PAIRS=1" in done.stderr
    else:
        assert done.returncode == 0 and done.stdout.strip() == "started"
        warned = f"{free} of this machine's {pool.size} sandbox slots are free" in done.stderr
        assert warned == (outcome == "warns"), done.stderr
