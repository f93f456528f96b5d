"""`SandboxLimits`: the resource limits of one bot container, with per-game and env overrides.

Defaults suit a ladder match. The Django settings pass a dict of overrides per game
(`limits_for(game, overrides)`); the environment can override any field on a worker
(`ARMADA_SANDBOX_MEMORY_MB=768`, `ARMADA_SANDBOX_GALAXY_MEMORY_MB=768` for one game).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from armada.referee.connection import (
    LOG_HEAD_BYTES,
    LOG_TAIL_BYTES,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_OUTPUT_BYTES,
)

ENV_PREFIX = "ARMADA_SANDBOX_"


@dataclass(frozen=True)
class SandboxLimits:
    """What one bot container may use. Every field is checked by `validate()`."""

    #: RAM of the whole container (bot, children, /tmp and /dev/shm pages); swap is never allowed.
    #: 1 GiB (as Halite III): the ML stack and a 100 MiB model peak at about 370 MiB (docs/sandbox.md).
    memory_mb: int = 1024
    #: Processes plus threads in the container (fork and thread bombs stop here).
    pids: int = 64
    #: Size of the writable /tmp (tmpfs, noexec); counts against memory_mb too.
    tmp_mb: int = 16
    #: CPU time share: 1.0 is one full core, enforced by the CFS quota.
    cpus: float = 1.0
    #: Open file descriptors per process (RLIMIT_NOFILE, soft = hard).
    nofile: int = 256
    #: Longest stdout line accepted (protocol.md); longer is status "output".
    max_line_bytes: int = MAX_LINE_BYTES
    #: All the stdout a bot may write in one match (as ProcessBot); past it status "output".
    max_output_bytes: int = MAX_OUTPUT_BYTES
    #: Bytes of stderr kept from the start and from the end of the log.
    log_head_bytes: int = LOG_HEAD_BYTES
    log_tail_bytes: int = LOG_TAIL_BYTES
    #: All the stderr a bot may write in one match; past it the bot is stopped with status "output".
    max_log_bytes: int = MAX_LOG_BYTES
    #: Seconds allowed from container creation until the bot has opened its stdin.
    start_timeout_s: float = 30.0

    def validate(self) -> SandboxLimits:
        """Return self, or raise ValueError naming the first bad field."""
        minimums: dict[str, float] = {
            "memory_mb": 32, "pids": 8, "tmp_mb": 1, "cpus": 0.05, "nofile": 16,
            "max_line_bytes": 1024, "log_head_bytes": 0, "log_tail_bytes": 0, "max_log_bytes": 1024,
            "start_timeout_s": 1,
        }
        for name, low in minimums.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
                raise ValueError(f"sandbox limit {name}: must be a number >= {low}, got {value!r}")
        if self.tmp_mb >= self.memory_mb:
            raise ValueError(f"sandbox limit tmp_mb: {self.tmp_mb} must stay below memory_mb {self.memory_mb}")
        if self.max_output_bytes < self.max_line_bytes:
            raise ValueError("sandbox limit max_output_bytes: must be at least max_line_bytes")
        return self

    def replace(self, overrides: Mapping[str, Any]) -> SandboxLimits:
        """A copy with `overrides` applied (unknown names and bad values raise ValueError)."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for name, raw in overrides.items():
            if name not in fields:
                raise ValueError(f"unknown sandbox limit {name!r}; known: {', '.join(sorted(fields))}")
            kind = float if fields[name].type in ("float", float) else int
            try:
                changes[name] = kind(raw)
            except (TypeError, ValueError):
                raise ValueError(f"sandbox limit {name}: not a number: {raw!r}") from None
        return dataclasses.replace(self, **changes).validate()

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * 1024 * 1024

    def threads(self, cpuset: str | None = None) -> int:
        """Threads a bot's numeric libraries get: its CPU share in whole cores (at least one), and
        no more than the CPUs of `cpuset` ("3", "0-1", "0,2") when it runs on a set."""
        share = max(1, int(self.cpus))
        if cpuset:
            share = min(share, cpuset_size(cpuset))
        return share


def cpuset_size(cpuset: str) -> int:
    """How many CPUs a Docker cpuset ("3", "0-3", "0,2-3") names."""
    count = 0
    for part in cpuset.split(","):
        low, _, high = part.partition("-")
        count += int(high) - int(low) + 1 if high else 1
    return count


def limit_variables(games: Iterable[str]) -> list[str]:
    """Every variable `env_overrides` reads: ARMADA_SANDBOX_<FIELD>, and ARMADA_SANDBOX_<GAME>_<FIELD>
    for each of `games`."""
    fields = [f.name.upper() for f in dataclasses.fields(SandboxLimits)]
    prefixes = [ENV_PREFIX, *(f"{ENV_PREFIX}{game.upper()}_" for game in games)]
    return [prefix + name for prefix in prefixes for name in fields]


def env_overrides(env: Mapping[str, str], game: str | None = None) -> dict[str, str]:
    """Fields set in `env`: ARMADA_SANDBOX_<FIELD>, then ARMADA_SANDBOX_<GAME>_<FIELD> on top."""
    names = [f.name for f in dataclasses.fields(SandboxLimits)]
    found: dict[str, str] = {}
    prefixes = [ENV_PREFIX] + ([f"{ENV_PREFIX}{game.upper()}_"] if game else [])
    for prefix in prefixes:
        for name in names:
            key = prefix + name.upper()
            if key in env:
                found[name] = env[key]
    return found


def limits_for(
    game: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> SandboxLimits:
    """Defaults (every game's: each fits them), then `overrides`, then the environment (the game's
    own variables on top of the general ones)."""
    limits = SandboxLimits()
    if overrides:
        limits = limits.replace(overrides)
    return limits.replace(env_overrides(os.environ if env is None else env, game))
