"""Leaves a setsid grandchild that keeps running (and burning a little CPU) after the match."""
import os
import time

from _proto import log, play


def spawn():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.closerange(0, 3)
            while True:  # the orphan: reparented to the container's init, never exits
                time.sleep(0.05)
        os._exit(0)
    os.wait()
    log("orphan left running")


play("Orphan Maker", on_orders=spawn)
