"""Writes an endless line (no newline ever) instead of orders."""
import sys

from _proto import play


def flood():
    chunk = "x" * 65536
    while True:
        sys.stdout.write(chunk)
        sys.stdout.flush()


play("Flooder", on_orders=flood)
