"""Ignores SIGTERM and never exits after the match (nor when its input closes)."""
import signal
import time

from _proto import log, play


def linger():
    log("ignoring the end")
    while True:
        time.sleep(1)


signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
play("Stubborn", on_end=linger)
linger()
