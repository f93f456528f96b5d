"""Allocates and touches memory until killed."""
from _proto import log, play

hoard = []


def bomb():
    while True:
        hoard.append(b"\x01" * (16 << 20))
        log(f"holding {len(hoard) * 16} MiB")


play("Memory Bomb", on_init=bomb)
