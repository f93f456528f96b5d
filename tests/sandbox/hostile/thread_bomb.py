"""Starts threads until the pids limit refuses (threads count as tasks)."""
import threading
import time

from _proto import log, play


def bomb():
    count = 0
    while count < 100000:
        try:
            threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
        except RuntimeError as exc:
            log(f"thread refused after {count} threads: {exc}")
            return
        count += 1
    log(f"THREADS UNLIMITED: {count}")


play("Thread Bomb", on_orders=bomb)
