"""Forks until the pids limit refuses; every child keeps trying to fork too."""
import os
import time

from _proto import err_name, log, play


def bomb():
    children = 0
    while True:
        try:
            pid = os.fork()
        except OSError as exc:
            log(f"fork refused after {children} children: {err_name(exc)}")
            return
        if pid == 0:  # child: keep forking, never return
            while True:
                try:
                    os.fork()
                except OSError:
                    time.sleep(0.05)
        children += 1


play("Fork Bomb", on_orders=bomb)
