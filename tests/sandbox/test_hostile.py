"""The hostile-bot suite: each bot in tests/sandbox/hostile/ plays a Mothership Down match
(seat 1) in the sandbox against a well-behaved bot (seat 2, also in the sandbox).

Every case must end with the right status and detail, the other bot unaffected (status ok),
its container removed and no process of it left on the host; the bot's own stderr report
shows that each attack failed. The matches run in parallel, four at a time, with small limits.
The suite runs twice: with containers started cold for each bot, and in warm slots (issue 12:
every layer of the wall holds for a container created ahead that waited for its bot).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from armada.referee.clock import Limits
from armada.referee.environment import bot_environment
from armada.referee.match import MatchOutcome, play_match
from armada_sandbox import BOT_IMAGE, DockerBot, SandboxLimits, WarmPool
from armada_sandbox._engine import docker_client as shared_client
from tests.sandbox.conftest import run_labels
from tests.sandbox.helpers import container_exists, containers_with, host_processes_of

#: (a timeout of 600 s: the first warm case waits up to 300 s for free slots, then all play)
pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(600)]

HOSTILE_DIR = Path(__file__).parent / "hostile"
#: Small limits for the hostile bots (the opponent gets the defaults).
SMALL = SandboxLimits(memory_mb=128, pids=32, tmp_mb=8, cpus=0.5, nofile=64, max_log_bytes=8 * 1024 * 1024)
MATCH_LIMITS = Limits(init_ms=8000, turn_ms=1500, bank_ms=0)
PARALLEL = 4
#: Text the cases' labels carry, which no folder a bot sees may name.
RUN_LABEL = "test-"


@dataclass
class Case:
    """One hostile bot: the status it must get and what its detail and log must show."""

    status: str | tuple[str, ...]
    detail: str = ""
    log: list[str] = field(default_factory=list)


CASES: dict[str, Case] = {
    "fork_bomb": Case("ok", log=[r"fork refused after \d+ children: EAGAIN"]),
    "thread_bomb": Case("ok", log=[r"thread refused after \d+ threads"]),
    "memory_bomb": Case("memory", detail="memory limit"),
    "cpu_loop": Case("timeout", detail="1500 ms"),
    "sleeper": Case("timeout", detail="1500 ms"),
    "stdout_flood": Case("output", detail="limit"),
    # Stale lines are dropped up to 1000 per request (issue 12), or the unread lines pass their
    # bound first (it depends on how fast the host reads): either is status protocol.
    "line_flood": Case("protocol", detail="nobody asked for|stale replies"),
    "no_newline": Case("timeout"),
    "stderr_flood": Case("ok", log=[r"bytes of log dropped"]),
    # Issue 12: past its stderr cap (64 MiB by default, 8 MiB here) in one match the bot is
    # stopped; its log keeps head and tail.
    "stderr_endless": Case("output", detail="bytes to stderr in one match",
                           log=[r"^FIRST PART$", r"bytes of log dropped", r"the log stops here"]),
    "network": Case("ok", log=[r"NET interfaces: lo$", r"NET dns example.com: blocked"]),
    "snoop": Case("ok", log=[r"READ /etc/shadow: denied \(EACCES\)", r"WRITE /tmp/ok: allowed",
                             r"USER uid=2\d{4} gid=2\d{4}"]),
    "proc_sys": Case("ok", log=[r"KNOB /proc/sysrq-trigger: denied"]),
    "fill_tmp": Case("ok", log=[r"TMP full after \d+ bytes \(ENOSPC\)", r"EXEC /tmp: denied \(EACCES\)"]),
    "syscalls": Case("ok", log=[r"SYSCALL unshare: Operation not permitted",
                                r"SYSCALL io_uring_setup: Operation not permitted"]),
    "orphan": Case("ok", log=[r"orphan left running"]),
    "kill_init": Case("ok", log=[r"KILL -1: child ended by signal 9", r"still alive after killing pid 1"]),
    "kill_self": Case("crashed", detail="signal 9"),
    "ignore_sigterm": Case("ok", log=[r"ignoring the end"]),
    "many_files": Case("ok", log=[r"FILES refused after \d+ \(EMFILE\)"]),
    "exit_code": Case("crashed", detail="exited with code 3"),
    # Issue 12: the host's RAM, CPUs, load and counters (the opponent's CPU use) read as empty.
    "host_view": Case("ok", log=[r"HOST /proc/meminfo: 0 bytes", r"HOST /proc/stat: 0 bytes", r"CPUS \[\d+\]$"]),
    # The same counters through /sys and /proc/sys (a red-team review found them readable).
    "sys_counters": Case("ok", log=[r"^COUNTER /proc/sys/fs/file-nr: "]),
}


@dataclass
class Played:
    """What one hostile match left behind, checked by the tests."""

    outcome: MatchOutcome
    seconds: float
    container_ids: list[str]
    leftover_pids: list[int]
    containers_left: list[str]
    warm: bool = False


def host_addresses(client: Any) -> list[str]:
    """Addresses a bot might use to reach the host: the bridge gateway and the host's own IPv4s."""
    found = {"172.17.0.1", "127.0.0.1"}
    try:
        gateway = client.networks.get("bridge").attrs["IPAM"]["Config"][0].get("Gateway")
        if gateway:
            found.add(gateway)
    except Exception:
        pass
    try:
        text = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, timeout=5).stdout
        found.update(re.findall(r"inet (\d+\.\d+\.\d+\.\d+)/", text))
    except (OSError, subprocess.SubprocessError):
        pass
    return sorted(found)


def play_case(folder: Path, name: str, warm: WarmPool | None) -> Played:
    seat1 = DockerBot(folder, f"{name}.py", label=name, limits=SMALL, warm=warm,
                      labels=run_labels(**{"armada.seat": "1", "armada.case": name}))
    seat2 = DockerBot(folder, "good.py", label="good", warm=warm,
                      labels=run_labels(**{"armada.seat": "2", "armada.case": name}))
    started = time.monotonic()
    outcome = play_match("mothership", {1: seat1, 2: seat2}, seed=7, limits=MATCH_LIMITS)
    seconds = time.monotonic() - started
    ids = [cid for cid in (seat1.container_id, seat2.container_id) if cid]
    client = shared_client()
    gone_by = time.monotonic() + 10  # a warm slot's container is removed in the background
    while any(container_exists(client, cid) for cid in ids) and time.monotonic() < gone_by:
        time.sleep(0.1)
    pids = [pid for cid in ids for pid in host_processes_of(cid)]
    left = [cid for cid in ids if container_exists(client, cid)]
    return Played(outcome, seconds, ids, pids, left, seat1.was_warm and seat2.was_warm)


@pytest.fixture(scope="module")
def listener() -> Any:
    """A TCP and a UDP socket on the host, on all addresses: no bot may reach them."""
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("0.0.0.0", 0))
    tcp.listen(16)
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("0.0.0.0", port))
    tcp.setblocking(False)
    udp.setblocking(False)
    yield port, tcp, udp
    tcp.close()
    udp.close()


@pytest.fixture(scope="module", params=["cold", "warm"])
def played(request, docker_client, listener, tmp_path_factory) -> Any:
    """Play every case once, PARALLEL at a time, in cold containers or in warm slots."""
    folder = tmp_path_factory.mktemp("hostile")
    shutil.copytree(HOSTILE_DIR, folder, dirs_exist_ok=True)
    port = listener[0]
    (folder / "targets.json").write_text(json.dumps({"port": port, "hosts": host_addresses(docker_client)}))
    with contextlib.ExitStack() as stack:
        warm = None
        if request.param == "warm":
            # seat 2 has the default limits: half the slots are remade for them at first (wait for it)
            warm = stack.enter_context(WarmPool(PARALLEL, image=BOT_IMAGE, limits=SMALL, take_wait=60,
                                                slot_wait=300))  # (other tests' pools may hold slots a while;
            # below the module's timeout, so a wait too long says so: SlotsBusy, not a timeout)
        with ThreadPoolExecutor(PARALLEL) as pool:
            futures = {name: pool.submit(play_case, folder, name, warm) for name in CASES}
            results = {name: future.result() for name, future in futures.items()}
        if warm is not None:
            assert all(result.warm for result in results.values())
        yield results


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_bot(played, name):
    case = CASES[name]
    result = played[name]
    hostile, good = result.outcome.players
    expected = case.status if isinstance(case.status, tuple) else (case.status,)
    assert hostile.status in expected and good.status == "ok", (hostile.detail, good.detail, hostile.log[-2000:])
    assert re.search(case.detail, hostile.detail), hostile.detail
    for pattern in case.log:
        assert re.search(pattern, hostile.log, re.MULTILINE), f"{pattern!r} not in log:\n{hostile.log[-3000:]}"
    if expected == ("ok",):
        assert result.outcome.result.outcome == "draw"  # both sides played the same orders (MD-9)
    else:
        assert (result.outcome.result.winner, result.outcome.result.outcome) == (2, "forfeit")
    assert len(result.container_ids) == 2
    assert result.containers_left == []
    assert result.leftover_pids == []
    assert result.seconds < 60


def test_no_attack_succeeded_in_any_log(played):
    """No line anywhere says an attack got through (OPEN, READABLE, WRITTEN, CHANGED, ALLOWED, RAN...)."""
    markers = re.compile(r": (OPEN|READABLE|WRITTEN|CHANGED|ALLOWED|RAN)\b|UNLIMITED|NEVER FULL")
    for name, result in played.items():
        bad = [line for line in result.outcome.players[0].log.splitlines() if markers.search(line)]
        assert not bad, f"{name}: {bad}"


def test_network_attempts_all_failed(played, listener):
    log = played["network"].outcome.players[0].log
    attempts = re.findall(r"^NET (.+?): (blocked|OPEN)", log, re.MULTILINE)
    assert len(attempts) >= 10
    assert {outcome for _, outcome in attempts} == {"blocked"}
    _, tcp, udp = listener
    with pytest.raises(BlockingIOError):
        tcp.accept()
    with pytest.raises(BlockingIOError):
        udp.recvfrom(512)


def test_secrets_and_writes_all_denied(played):
    log = played["snoop"].outcome.players[0].log
    reads = re.findall(r"^READ (\S+): (\w+)", log, re.MULTILINE)
    writes = re.findall(r"^WRITE (\S+): (\w+)", log, re.MULTILINE)
    assert len(reads) == 10 and {r for _, r in reads} == {"denied"}
    assert {path: r for path, r in writes} == {**{p: "denied" for p, _ in writes if p != "/tmp/ok"},
                                              "/tmp/ok": "allowed"}
    env = set(re.search(r"^ENV (.*)$", log, re.MULTILINE).group(1).split(","))
    # the SDK's one definition, nothing from the image or the worker (docs/bots-environment.md)
    assert env == set(bot_environment(sandbox="docker", workdir="/bot", home="/tmp", seed=1))


def test_the_host_view_is_masked_and_folder_names_are_opaque(played, request):
    log = played["host_view"].outcome.players[0].log
    sizes = dict(re.findall(r"^HOST (\S+): (0 bytes|\d+ bytes|unreadable.*)$", log, re.MULTILINE))
    # hidden: empty, or absent (a kernel without schedstats has no /proc/schedstat)
    assert len(sizes) == 9 and set(sizes.values()) <= {"0 bytes", "unreadable (FileNotFoundError)"}, sizes
    mounts = dict(re.findall(r"^MOUNT (\S+) (\S+)$", log, re.MULTILINE))
    assert set(mounts) == {"/bot", "/io"}
    if "warm" in request.node.callspec.id:  # a warm slot's folders name nothing of the bot or the match
        assert all(re.fullmatch(r".*/armada-sandbox/[\w]+/(code|io)", path) for path in mounts.values()), mounts
        assert not any("host_view" in path or RUN_LABEL in path for path in mounts.values())


def test_every_dangerous_syscall_refused(played):
    log = played["syscalls"].outcome.players[0].log
    outcomes = dict(re.findall(r"^SYSCALL (\w+): (.+)$", log, re.MULTILINE))
    assert len(outcomes) == 15
    assert all("errno 1)" in text or "errno 38)" in text for text in outcomes.values()), outcomes


def test_limits_were_the_ones_asked(played):
    """The bombs stop at the configured limits, not at some larger default."""
    names = ("fork_bomb", "thread_bomb", "many_files", "fill_tmp")
    logs = {name: played[name].outcome.players[0].log for name in names}
    assert int(re.search(r"fork refused after (\d+)", logs["fork_bomb"]).group(1)) < SMALL.pids
    assert int(re.search(r"thread refused after (\d+)", logs["thread_bomb"]).group(1)) < SMALL.pids
    assert int(re.search(r"FILES refused after (\d+)", logs["many_files"]).group(1)) < SMALL.nofile
    assert int(re.search(r"TMP full after (\d+)", logs["fill_tmp"]).group(1)) <= SMALL.tmp_mb * 1024 * 1024


def test_stubborn_bot_killed_within_grace(played):
    # end message, 1 s grace, then the container is killed: far below the 8 s init bound.
    assert played["ignore_sigterm"].seconds < 8


def test_nothing_of_the_suite_is_left(played, docker_client):
    from tests.sandbox.conftest import RUN_ID

    for result in played.values():
        for cid in result.container_ids:
            assert host_processes_of(cid) == []
    assert containers_with(docker_client, {"armada.test": RUN_ID, "armada.case": "orphan"}) == []


def test_host_counters_in_sys_are_masked_too(played):
    """What the masked /proc files hide is not read from /sys or /proc/sys instead: each CPU's idle
    time (how busy the opponent's core is), each NUMA node's RAM and memory counters, interrupts
    per CPU, the host's open files (the red-team review of the sandbox found them all readable), the
    disks' reads and writes and zram's memory use (/sys/block, left readable until 2026-12-05)."""
    log = played["sys_counters"].outcome.players[0].log
    sizes = dict(re.findall(r"^COUNTER (\S+): (.+)$", log, re.MULTILINE))
    assert int(re.search(r"^COUNTERS (\d+)$", log, re.MULTILINE).group(1)) == len(sizes)
    assert "/proc/sys/fs/file-nr" in sizes  # the probe ran
    assert {path: size for path, size in sizes.items() if size != "0 bytes"} == {}

