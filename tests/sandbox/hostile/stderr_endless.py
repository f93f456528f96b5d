"""Before its orders, writes stderr without newlines for ever (until the referee stops reading it)."""
import os

from _proto import log, play


def flood():
    os.write(2, b"FIRST PART\n")
    chunk = b"x" * 4096
    try:
        while True:
            os.write(2, chunk)
    except OSError:
        pass  # the referee stopped reading: the bot replies, too late


play("Endless Log", on_init=lambda: log("starting"), on_orders=flood)
