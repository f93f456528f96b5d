"""From request `when` on, writes stderr without newlines for ever (a thread), answering correctly."""
import os
import threading

from _raw import good_answer, play, reply


def flood():
    chunk = b"x" * 4096
    os.write(2, b"FIRST PART\n")
    try:
        while True:
            os.write(2, chunk)
    except OSError:
        pass  # the referee stopped reading


def start(msg):
    threading.Thread(target=flood, daemon=True).start()
    reply(good_answer(msg))


play(start)
