"""Reading settings from environment variables: the one place the site looks at os.environ."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def env_str(name: str, default: str) -> str:
    """A string setting; empty counts as unset."""
    return os.environ.get(name) or default


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise RuntimeError(f"environment variable {name} must be an integer, got {raw!r}") from exc


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if not raw:
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise RuntimeError(f"environment variable {name} must be true or false, got {raw!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if not raw:
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def data_dir() -> Path:
    """Where local files live (SQLite database, replays, logs, uploads)."""
    return Path(env_str("ARMADA_DATA_DIR", str(REPO_ROOT / "var"))).resolve()
