"""Bot containers: their options (the whole wall in one place), labels, creation and removal.

`container_options()` is what every bot container is made with; a warm slot's container
(`warm_container_options`) and a slot's network anchor (`anchor_options`) are the same wall
with another command. `create_container` adds the masked paths docker-py has no keyword for;
`remove_container` retries until the engine says the container no longer exists. `DockerBot`
and `WarmPool` both make and remove their containers through here.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from docker.errors import NotFound
from docker.models.containers import _create_container_args
from docker.types import LogConfig, Mount, Ulimit

from armada.referee.connection import ExitInfo
from armada.referee.environment import bot_environment
from armada_sandbox._seccomp import profile_json
from armada_sandbox.limits import SandboxLimits
from armada_sandbox.slots import ANCHOR_UID_BASE, Lease, Slot

#: The image's user; only used without a slot (containers of `container_options(slot=None)`).
BOT_USER = "10001:10001"
#: Every container we create carries this label (the sweeper looks for it).
SANDBOX_LABEL = "armada.sandbox"
#: Label of a warm container (the sweeper leaves those of held slots alone, at any age).
WARM_LABEL = "armada.warm"
#: Label of a warm slot's network anchor (docs/sandbox.md, "Warm containers").
ANCHOR_LABEL = "armada.anchor"
#: Labels of a slot's container: the lease it belongs to, and the holder file of that lease's process.
LEASE_LABEL = "armada.lease"
HOLDER_LABEL = "armada.holder"
#: The shell only wires the FIFOs to the bot's standard streams, then becomes the bot.
LAUNCH = 'exec python3 "$1" </io/stdin >/io/stdout 2>/io/stderr'
#: A warm container's shell: wait for "SEED ENTRY" on /io/go (end of file: exit), then the same.
WARM_LAUNCH = ('read -r seed entry </io/go || exit 0; [ "$seed" = - ] || export ARMADA_BOT_SEED="$seed"; '
               'exec python3 "$entry" </io/stdin >/io/stdout 2>/io/stderr')

#: Docker's own masked paths (20.10), then what else of the host we hide (docs/sandbox.md, "What
#: a bot sees of its host"): RAM, CPUs, load, uptime and the host-wide counters (/proc/stat shows
#: the other bots' CPU use). A masked file reads as empty; a masked folder as empty.
MASKED_PATHS = [
    "/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
    "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap",
    "/proc/meminfo", "/proc/loadavg", "/proc/stat", "/proc/cpuinfo", "/proc/uptime", "/proc/vmstat",
    "/proc/swaps", "/proc/diskstats", "/proc/zoneinfo", "/proc/buddyinfo", "/proc/pagetypeinfo",
    "/proc/interrupts", "/proc/softirqs", "/proc/schedstat", "/proc/pressure", "/proc/locks",
    "/proc/vmallocinfo", "/proc/partitions",
    # The same counters through /sys and /proc/sys (the red-team review found them readable): the
    # interrupts per CPU, the host's open files, inodes and dentries; per CPU and per node below.
    "/sys/kernel/irq", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state",
    # The disks' counters (/proc/diskstats again, per device: the host's reads and writes) and
    # zram's memory use; the virtual devices (loop, zram, dm) here, the host's disks below.
    "/sys/devices/virtual/block",
]
#: Masked for each CPU of the host: its idle time and its time per frequency (how busy it is: the
#: opponent's core), and for each memory node: its RAM and memory counters (/proc/meminfo, vmstat).
PER_CPU_MASKED = ("/sys/devices/system/cpu/cpu{}/cpuidle", "/sys/devices/system/cpu/cpu{}/cpufreq/stats")
PER_NODE_MASKED = ("/sys/devices/system/node/node{}/meminfo", "/sys/devices/system/node/node{}/vmstat",
                   "/sys/devices/system/node/node{}/numastat")
#: The host's block devices, each a link to its folder of counters (`stat`, `inflight`, partitions').
BLOCK_DEVICES = Path("/sys/block")
#: At most this many CPUs (and nodes, and disks) are named (a path the host lacks is skipped by the runtime).
MAX_NUMBERED = 1024


def _highest(listing: str, fallback: int) -> int:
    """The highest number of a kernel range list (`0-3,8`) in file `listing`; `fallback` if unreadable."""
    try:
        text = Path(listing).read_text().strip()
        return max(int(part) for item in text.split(",") for part in item.split("-"))
    except (OSError, ValueError):
        return fallback


def _disks() -> list[str]:
    """The folders of this host's block devices outside /sys/devices/virtual (its disks), sorted."""
    try:
        folders = {os.path.realpath(link) for link in BLOCK_DEVICES.iterdir()}
    except OSError:
        return []
    return sorted(f for f in folders if not f.startswith("/sys/devices/virtual/"))[:MAX_NUMBERED]


@functools.cache
def masked_paths() -> tuple[str, ...]:
    """MASKED_PATHS and the per-CPU and per-node counters of this host's every possible CPU and node,
    and its disks' folders (the engine's host is the worker's: one kernel, one /sys)."""
    cpus = min(_highest("/sys/devices/system/cpu/possible", (os.cpu_count() or 1) - 1), MAX_NUMBERED - 1)
    nodes = min(_highest("/sys/devices/system/node/possible", 0), MAX_NUMBERED - 1)
    return (*MASKED_PATHS, *(path.format(n) for n in range(cpus + 1) for path in PER_CPU_MASKED),
            *(path.format(n) for n in range(nodes + 1) for path in PER_NODE_MASKED), *_disks())


def container_options(
    code_dir: Path, io_dir: Path, entry: str, limits: SandboxLimits, labels: dict[str, str],
    bot_seed: int | None = None, slot: Slot | None = None,
) -> dict[str, Any]:
    """The keyword arguments of `containers.create`: the whole wall in one place (tests read it).

    The environment is the SDK's one definition (`armada.referee.environment`), as for local runs,
    with the numeric libraries' threads set to the bot's CPU share (`SandboxLimits.threads`).
    With a `slot`, the bot runs as the slot's uid on the slot's CPU set, and RLIMIT_NPROC (per
    uid, so per slot) is the pids limit too.
    """
    per_slot: dict[str, Any] = {}
    ulimits = [Ulimit(name="nofile", soft=limits.nofile, hard=limits.nofile), Ulimit(name="core", soft=0, hard=0)]
    if slot is not None:
        per_slot["cpuset_cpus"] = slot.cpuset
        ulimits.append(Ulimit(name="nproc", soft=limits.pids, hard=limits.pids))
    return {
        "command": ["/bin/sh", "-c", LAUNCH, "sh", entry],
        "user": slot.user if slot is not None else BOT_USER,
        **per_slot,
        "working_dir": "/bot",
        "hostname": "bot",
        "environment": bot_environment(sandbox="docker", workdir="/bot", home="/tmp", seed=bot_seed,  # noqa: S108
                                       threads=limits.threads(slot.cpuset if slot is not None else None)),
        "network_mode": "none",
        "read_only": True,
        "mounts": [
            Mount("/bot", str(code_dir), type="bind", read_only=True),
            Mount("/io", str(io_dir), type="bind", read_only=True),
        ],
        "tmpfs": {"/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmp_mb}m,mode=1777"},  # noqa: S108 (in the container)
        "shm_size": f"{limits.tmp_mb}m",
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges:true", f"seccomp={profile_json()}"],
        "pids_limit": limits.pids,
        "mem_limit": limits.memory_bytes,
        "memswap_limit": limits.memory_bytes,
        "mem_swappiness": 0,
        "oom_score_adj": 1000,
        "nano_cpus": int(limits.cpus * 1e9),
        "ulimits": ulimits,
        "init": True,
        "log_config": LogConfig(type="none"),
        "labels": labels,
        "stdin_open": False,
        "detach": True,
    }


def warm_container_options(code_dir: Path, io_dir: Path, limits: SandboxLimits, lease: Lease,
                           extra_labels: dict[str, str] | None = None, anchor: str | None = None) -> dict[str, Any]:
    """A warm slot's container: `container_options` (the same wall) with the waiting shell.

    Its seed comes through `go` (the shell exports it), so its environment is a cold
    container's; its labels name only the slot (the container is made before its bot is known).
    With `anchor` (a container id) it joins that container's network namespace (loopback only,
    the slot's own) instead of getting a new one; the host name is then the anchor's ("bot").
    """
    options = container_options(code_dir, io_dir, "main.py", limits,
                                slot_labels(lease, extra_labels, {WARM_LABEL: "1"}), None, lease.slot)
    options["command"] = ["/bin/sh", "-c", WARM_LAUNCH]
    if anchor is not None:
        options["network_mode"] = f"container:{anchor}"
        del options["hostname"]  # the engine refuses a host name with a joined network
    return options


def anchor_options(lease: Lease, extra_labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A slot's network anchor: the wall with nothing mounted, tiny limits, asleep for ever.

    It holds the slot's network namespace (`network_mode="none"`: loopback only) for the
    slot's bot containers to join one after another; it opens no socket and runs no bot code.
    """
    tiny = SandboxLimits(memory_mb=32, pids=8, tmp_mb=1, cpus=0.1, nofile=16).validate()
    own = Slot(lease.slot.index, ANCHOR_UID_BASE + lease.slot.index, lease.slot.cpuset)  # not the bots' uid
    labels = slot_labels(lease, extra_labels, {WARM_LABEL: "1", ANCHOR_LABEL: "1"})
    with tempfile.TemporaryDirectory() as empty:
        options = container_options(Path(empty), Path(empty), "main.py", tiny, labels, None, own)
    del options["mounts"]
    options["command"] = ["sleep", "infinity"]
    return options


def slot_labels(lease: Lease, extra: dict[str, str] | None = None, own: dict[str, str] | None = None) -> dict[str, str]:
    """Labels of a container of slot `lease`: `extra` (the caller's), the sandbox's, when it was
    made, the slot and its lock folder, the lease and its holder's file (what the sweeper and the
    slot's next holder read), then `own` (its kind)."""
    return {
        **(extra or {}),
        SANDBOX_LABEL: "bot",
        "armada.created": str(int(time.time())),
        "armada.slot": str(lease.slot.index),
        "armada.slots": str(lease.lock_dir),
        LEASE_LABEL: lease.id,
        HOLDER_LABEL: str(lease.holder_path),
        **(own or {}),
    }


def remove_stale(client: Any, lease: Lease) -> int:
    """Remove every container of `lease`'s slot that belongs to another lease (a dead holder's: a
    slot is held from before its container is made until after it is removed); how many.

    Raises RuntimeError when one will not go: the slot must not run a bot beside it (its uid)."""
    filters = {"label": [f"{SANDBOX_LABEL}=bot", f"armada.slot={lease.slot.index}", f"armada.slots={lease.lock_dir}"]}
    removed = 0
    for entry in client.api.containers(all=True, filters=filters):
        if (entry.get("Labels") or {}).get(LEASE_LABEL) == lease.id:
            continue
        if not remove_container(client.containers.prepare_model({"Id": entry["Id"]})):
            raise RuntimeError(f"container {entry['Id'][:12]} of an earlier holder of slot {lease.slot.index} "
                               "could not be removed")
        removed += 1
    return removed


def warm_entry(entry: str) -> bool:
    """Can `entry` go through a warm container's `go` line (one word, no blanks)?"""
    return entry.isprintable() and not any(c.isspace() for c in entry)


def create_container(client: Any, image: str, options: dict[str, Any]) -> Any:
    """`client.containers.create(image, **options)` with our masked paths added to its host config.

    docker-py has no keyword for MaskedPaths (Docker API >= 1.40), so the options are turned into
    the API's arguments by docker-py's own converter and the field is added to the host config.
    """
    args = _create_container_args({**options, "image": image, "version": client.api._version})
    args["host_config"]["MaskedPaths"] = list(masked_paths())
    created = client.api.create_container(**args)
    return client.containers.prepare_model({"Id": created["Id"]})  # no inspect: nothing needs its attrs yet


def remove_container(container: Any) -> bool:
    """Force-remove `container` (and so every process in it), retrying a busy engine a few times;
    True once the engine says it no longer exists."""
    if container is None:
        return True
    for attempt in range(5):
        try:
            container.remove(force=True, v=True)
        except NotFound:
            pass
        except Exception:  # a busy or restarting engine: try again
            time.sleep(0.2 * (attempt + 1))
            continue
        try:
            container.reload()
        except NotFound:
            return True
        except Exception:
            time.sleep(0.2 * (attempt + 1))
    return False


def exit_info_from_state(state: dict[str, Any]) -> ExitInfo:
    """ExitInfo from a container's State (exit codes above 128 are 128 + the killing signal)."""
    if state.get("Running") or state.get("Status") in ("created", "running", "restarting", "paused"):
        return ExitInfo()
    code = int(state.get("ExitCode", 0))
    signal = code - 128 if 128 < code <= 128 + 64 else None
    return ExitInfo(returncode=code, signal=signal, oom_killed=bool(state.get("OOMKilled")))
