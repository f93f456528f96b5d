"""What a host runs at once and what each bot gets of it: matches by cores and memory
(`_capacity`), the numeric libraries' threads by CPU share (`SandboxLimits.threads`), the memory
peak read from a container's cgroup (`_memory.PeakReader`). No Docker needed."""

from __future__ import annotations

from pathlib import Path

from armada.referee.connection import ExitInfo
from armada_sandbox import SandboxLimits
from armada_sandbox._capacity import HOST_RESERVE_MB, bot_memory_mb, match_concurrency
from armada_sandbox._containers import container_options
from armada_sandbox._memory import PeakReader, to_mib
from armada_sandbox.limits import cpuset_size
from armada_sandbox.slots import Slot


def test_matches_at_once_follow_the_cores_and_the_memory() -> None:
    # 16 cores, plenty of memory: the cores decide (C / 2 - 1).
    assert match_concurrency(cores=16, memory_mb=128 * 1024, bot_memory_mb=1024) == 7
    # 16 cores, 8 GiB: 6 GiB for bots, 6 bots of 1 GiB: the validation pair and 2 matches.
    assert match_concurrency(cores=16, memory_mb=8 * 1024, bot_memory_mb=1024) == 2
    # The same host with 512 MiB bots: 12 bots, 5 matches.
    assert match_concurrency(cores=16, memory_mb=8 * 1024, bot_memory_mb=512) == 5
    # Never below one (a small machine plays one match beside the validation pair, sharing).
    assert match_concurrency(cores=2, memory_mb=HOST_RESERVE_MB, bot_memory_mb=1024) == 1


def test_the_host_memory_is_the_containers_limit_when_that_is_smaller(tmp_path: Path, monkeypatch) -> None:
    """A worker in a container with a memory limit counts that limit, not the machine's RAM: else it
    starts more matches than its cgroup holds and the kernel kills bots. "max" (cgroup v2, no limit)
    and a limit above the machine's RAM leave the machine's; a missing file is skipped."""
    from armada_sandbox import _capacity

    v2, v1 = tmp_path / "memory.max", tmp_path / "memory.limit_in_bytes"
    monkeypatch.setattr(_capacity, "_CGROUP_LIMITS", (v2, v1))
    monkeypatch.setattr(_capacity.os, "sysconf", lambda name: {"SC_PAGE_SIZE": 4096,
                                                               "SC_PHYS_PAGES": 4 * 1024 * 256}[name])  # 4 GiB
    assert _capacity.host_memory_mb() == 4096  # (neither file there)
    v2.write_text("max\n")
    assert _capacity.host_memory_mb() == 4096
    v2.write_text(f"{3 << 30}\n")
    assert _capacity.host_memory_mb() == 3072
    v2.unlink()
    v1.write_text(f"{(1 << 63) - 4096}\n")  # cgroup v1's "no limit": larger than the machine
    assert _capacity.host_memory_mb() == 4096
    v1.write_text(f"{1536 << 20}\n")
    assert _capacity.host_memory_mb() == 1536


def test_the_largest_bot_of_any_game_counts() -> None:
    assert bot_memory_mb(env={}) == SandboxLimits().memory_mb
    assert bot_memory_mb(env={"ARMADA_SANDBOX_GALAXY_MEMORY_MB": "3000"}) == 3000


def test_threads_are_the_cpu_share_in_whole_cores_within_the_cpu_set() -> None:
    assert SandboxLimits(cpus=1.0).threads() == 1
    assert SandboxLimits(cpus=0.5).threads() == 1  # at least one
    assert SandboxLimits(cpus=2.5).threads() == 2
    assert SandboxLimits(cpus=4.0).threads("3") == 1  # a slot's set of one CPU
    assert SandboxLimits(cpus=4.0).threads("0-1,4") == 3
    assert cpuset_size("0,2-5") == 5


def test_the_container_environment_carries_the_thread_count(tmp_path: Path) -> None:
    two = container_options(tmp_path, tmp_path, "main.py", SandboxLimits(cpus=2.0), {})
    assert two["environment"]["OMP_NUM_THREADS"] == two["environment"]["MKL_NUM_THREADS"] == "2"
    slotted = container_options(tmp_path, tmp_path, "main.py", SandboxLimits(cpus=2.0), {}, slot=Slot(0, 20000, "1"))
    assert slotted["environment"]["OPENBLAS_NUM_THREADS"] == "1"  # its slot runs it on one CPU


def test_the_memory_peak_is_the_highest_sampled_and_unknown_without_a_cgroup(tmp_path: Path) -> None:
    folder = tmp_path / "memory" / "docker" / "abc123"
    folder.mkdir(parents=True)
    peak = folder / "memory.max_usage_in_bytes"  # cgroup v1, cgroupfs driver
    reader = PeakReader("abc123", root=tmp_path)
    peak.write_text(f"{300 << 20}\n")
    assert reader.sample() == 300 << 20
    peak.write_text(f"{200 << 20}\n")  # a later, lower reading never lowers the peak
    assert reader.sample() == 300 << 20
    peak.unlink()  # the container ended: its cgroup is gone
    assert reader.sample() == 300 << 20
    v2 = tmp_path / "system.slice" / "docker-def456.scope"
    v2.mkdir(parents=True)
    (v2 / "memory.peak").write_text(str(5 << 20))
    assert PeakReader("def456", root=tmp_path).sample() == 5 << 20
    assert PeakReader("nothing", root=tmp_path).sample() is None
    # an engine with a cgroup parent of its own (infra/dockerd-second.sh: --cgroup-parent /armada-NAME)
    parented = tmp_path / "memory" / "armada-host2" / "789abc"
    parented.mkdir(parents=True)
    (parented / "memory.max_usage_in_bytes").write_text(str(7 << 20))
    assert PeakReader("789abc", root=tmp_path).sample() == 7 << 20
    assert (to_mib(1), to_mib(1 << 20), to_mib(None)) == (1, 1, None)


def test_an_out_of_memory_exit_names_the_peak_and_the_limit() -> None:
    info = ExitInfo(signal=9, oom_killed=True, memory_peak_mib=1024, memory_limit_mib=1024)
    assert info.describe() == "killed for exceeding its memory limit (peak 1024 MiB, limit 1024 MiB)"
    assert ExitInfo(oom_killed=True).describe() == "killed for exceeding its memory limit"
