"""Issue 12: a bot cannot slow or starve its neighbour through shared CPU or per-user limits.

Each seat runs in its own slot: its own CPU set and its own uid. Here: every process of a
hog spinning 30 of them may run only on the hog's CPU, none on the innocent bot's; the
innocent bot's per-user kernel objects are the same beside an idle and beside an exhausting
neighbour (side by side in one run). The time the hog costs the innocent bot is measured by
bench/sandbox.py (`target sandbox-cpu-fairness`): on a shared virtual machine it depends on
the host's other load, which no CPU set of ours controls.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from armada_sandbox import DockerBot, SandboxLimits, default_pool
from armada_sandbox.slots import host_cpus
from tests.sandbox.conftest import run_labels
from tests.sandbox.helpers import host_processes_of
from tests.support.services import missing

pytestmark = [pytest.mark.docker, pytest.mark.slow]

HERE = Path(__file__).parent / "neighbours"
LIMITS = SandboxLimits(pids=64, nofile=1024)


def allowed_cpus(pid: int) -> str:
    """The CPUs host process `pid` may run on (Cpus_allowed_list), "" once it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return ""
    return next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Cpus_allowed_list"))


def ask(bot: DockerBot, word: str, timeout: float = 30.0) -> str:
    bot.send(word.encode() + b"\n")
    line = bot.read_line(time.monotonic() + timeout)
    assert line is not None, (word, bot.log()[-2000:])
    return line.decode()


def pair(folder: Path, second: str) -> tuple[DockerBot, DockerBot]:
    """The innocent bot and its neighbour, on two different CPUs when the host has two."""
    # both at once: a test holding one slot while it waits for another holds up the rest of the suite
    lease1, lease2 = default_pool().acquire_pairs(1, timeout=200)
    try:
        innocent = DockerBot(folder, "innocent.py", label="innocent", limits=LIMITS, slot=lease1, labels=run_labels())
        other = DockerBot(folder, second, label="neighbour", limits=LIMITS, slot=lease2, labels=run_labels())
    except BaseException:
        lease1.release()
        lease2.release()
        raise
    return innocent, other


@pytest.fixture
def folder(docker_client, tmp_path) -> Path:
    shutil.copytree(HERE, tmp_path / "bots")
    (tmp_path / "bots").chmod(0o755)
    return tmp_path / "bots"


def test_a_cpu_hog_next_door_runs_only_on_its_own_cpu(folder):
    if len(host_cpus()) < 2:
        missing("CPU sets need two CPUs (CI needs two)")
    innocent, hog = pair(folder, "hog.py")
    try:
        innocent.start()
        hog.start()
        assert ask(hog, "spin") == "ok"
        hog_cpus = {allowed_cpus(pid) for pid in host_processes_of(hog.container_id)} - {""}
        innocent_cpus = {allowed_cpus(pid) for pid in host_processes_of(innocent.container_id)} - {""}
        assert len(host_processes_of(hog.container_id)) > 30
        assert hog_cpus == {hog.lease.slot.cpuset} and innocent_cpus == {innocent.lease.slot.cpuset}
        assert hog.lease.slot.cpuset != innocent.lease.slot.cpuset
        assert float(ask(innocent, "work")) > 0
    finally:
        hog.close(grace=0)
        innocent.close(grace=0)


def test_an_exhausting_bot_leaves_the_innocent_bot_its_per_user_limits(folder):
    innocent, greedy = pair(folder, "innocent.py")
    try:
        innocent.start()
        greedy.start()
        beside_idle = ask(innocent, "limits")
        taken = ask(greedy, "exhaust").split()
        beside_exhausting = ask(innocent, "limits")
        assert int(taken[0]) > 0 and int(taken[1]) > 0
        assert beside_exhausting == beside_idle, (beside_idle, taken, beside_exhausting)
    finally:
        greedy.close(grace=0)
        innocent.close(grace=0)
