"""Sizes for people, one way everywhere: the SDK's messages and the site's (standard library only)."""

from __future__ import annotations

#: Bytes in a mebibyte.
MIB = 1024 * 1024


def human_size(count: int) -> str:
    """`count` bytes for people: MiB from 1 MiB up (one decimal), KiB from 1 KiB up (rounded up,
    never "0.0 MiB"), else bytes (a 46-byte armada.json is not "1 KiB")."""
    if count < 1024:
        return f"{count} byte{'' if count == 1 else 's'}"
    return f"{count / MIB:.1f} MiB" if count >= MIB else f"{-(-count // 1024)} KiB"


def with_bytes(count: int) -> str:
    """`count` exactly and for people: `150000 bytes (147 KiB)`, `104857600 bytes (100.0 MiB)`."""
    return human_size(count) if count < 1024 else f"{count} bytes ({human_size(count)})"
