"""Floods stderr from a thread (4 MiB, below the test's 8 MiB stderr cap), yet answers correctly."""
import os
import threading

from _proto import play


def flood():
    chunk = b"log line that nobody will read\n" * 2048  # 64 KiB
    for _ in range(64):
        os.write(2, chunk)


threading.Thread(target=flood, daemon=True).start()
play("Chatterbox")
