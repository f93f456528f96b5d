"""Exits with code argv[2] (default 3) at request `when`, or kills itself with SIGKILL if argv[2] is "kill"."""
import os
import signal
import sys

from _raw import arg, play


def crash(msg):
    print("about to crash", file=sys.stderr, flush=True)
    how = arg(2, "3")
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.exit(int(how))


play(crash)
