"""How many matches a worker host plays at once: by its cores and by its memory (docs/deploy.md,
"How many bots a host runs at once").

Each running bot has a core of its own and up to its game's `memory_mb` (no swap); a match has
two bots, and the host's first two cores (and two bots' memory) are the validation pair's. The
match worker's default concurrency is the smaller of what the cores allow (C / 2 - 1) and what
the memory allows once HOST_RESERVE_MB is kept for the site's own processes, at least one.
`python -m armada_sandbox concurrency` prints it for `make up` and the worker image.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from armada.games.registry import GAMES
from armada_sandbox.limits import limits_for
from armada_sandbox.slots import host_cpus

#: MiB kept for what is not a bot: the engine, the workers' processes, the web and database.
HOST_RESERVE_MB = 2048
MIB = 1024 * 1024
#: A cgroup's memory limit (v2, then v1) when this process runs in a container with one.
_CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


def host_memory_mb() -> int:
    """This machine's memory in MiB, or its container's limit when that is smaller."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // MIB
    for path in _CGROUP_LIMITS:
        try:
            raw = path.read_text().strip()
        except OSError:
            continue
        if raw.isdigit():
            total = min(total, int(raw) // MIB)
    return total


def bot_memory_mb(env: Mapping[str, str] | None = None) -> int:
    """The largest memory a bot of any game may use here (the settings' ARMADA_SANDBOX_* included)."""
    return max(limits_for(game, env=env).memory_mb for game in GAMES)


def match_concurrency(*, cores: int, memory_mb: int, bot_memory_mb: int) -> int:
    """Matches at once on a host of `cores` and `memory_mb`: two bots each, after the validation
    pair, within both the cores and the memory left after HOST_RESERVE_MB; at least one."""
    by_cores = cores // 2 - 1
    bots = max(0, memory_mb - HOST_RESERVE_MB) // max(1, bot_memory_mb)
    by_memory = bots // 2 - 1
    return max(1, min(by_cores, by_memory))


def default_concurrency(purpose: str = "match", env: Mapping[str, str] | None = None) -> int:
    """The worker's default concurrency here: 1 for validation, `match_concurrency` for matches."""
    if purpose == "validation":
        return 1
    return match_concurrency(cores=len(host_cpus()), memory_mb=host_memory_mb(), bot_memory_mb=bot_memory_mb(env))
