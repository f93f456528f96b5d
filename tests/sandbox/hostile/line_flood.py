"""Writes stale replies (id 0) forever instead of orders."""
import sys

from _proto import play


def flood():
    line = '{"id": 0}\n' * 1000
    while True:
        sys.stdout.write(line)
        sys.stdout.flush()


play("Line Flooder", on_orders=flood)
