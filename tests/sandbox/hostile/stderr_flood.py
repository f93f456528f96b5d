"""Floods stderr from a thread during the whole match, yet answers correctly."""
import os
import threading

from _proto import play


def flood():
    chunk = b"log line that nobody will read\n" * 2048
    while True:
        os.write(2, chunk)


threading.Thread(target=flood, daemon=True).start()
play("Chatterbox")
