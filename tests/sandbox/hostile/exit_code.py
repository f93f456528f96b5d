"""Exits with code 3 when asked for orders: status crashed, exit code 3."""
import sys

from _proto import log, play


def leave():
    log("leaving with code 3")
    sys.exit(3)


play("Quitter", on_orders=leave)
