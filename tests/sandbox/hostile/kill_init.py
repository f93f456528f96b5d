"""Tries to kill its parent (the container's init, pid 1) and every process it can see, then plays on."""
import os
import signal
import time

from _proto import err_name, log, play


def kill():
    log(f"parent pid {os.getppid()}")
    child = os.fork()
    if child == 0:
        time.sleep(3600)
        os._exit(0)
    for target, what in ((os.getppid(), "parent"), (1, "init")):
        try:
            os.kill(target, signal.SIGKILL)
            log(f"KILL {what}: sent")
        except OSError as exc:
            log(f"KILL {what}: refused ({err_name(exc)})")
    os.kill(-1, signal.SIGKILL)  # everything we may signal except init and ourselves
    _, status = os.waitpid(child, 0)
    log(f"KILL -1: child ended by signal {os.WTERMSIG(status) if os.WIFSIGNALED(status) else None}")
    time.sleep(0.2)
    log(f"still alive after killing pid 1: init exists={os.path.exists('/proc/1')}")


play("Regicide", on_orders=kill)
