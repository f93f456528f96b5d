"""Sizes for people, one way everywhere: the SDK's messages and the site's (standard library only)."""

from __future__ import annotations

#: Bytes in a mebibyte.
MIB = 1024 * 1024


def human_size(count: int) -> str:
    """`count` bytes for people: MiB from 1 MiB up (one decimal), else KiB (rounded up: a 1-byte
    file is 1 KiB, never "0.0 MiB")."""
    return f"{count / MIB:.1f} MiB" if count >= MIB else f"{-(-count // 1024)} KiB"


def with_bytes(count: int) -> str:
    """`count` exactly and for people: `150000 bytes (147 KiB)`, `104857600 bytes (100.0 MiB)`."""
    return f"{count} bytes ({human_size(count)})"
