"""From request `when` on, writes stderr without newlines for ever (a thread), answering correctly.

With argv[2] = N, its answer to request `when` waits (at most 5 s) until N bytes are written,
so the flood passes a cap of fewer bytes whatever the speed of the host or the length of the game.
"""
import os
import threading

from _raw import arg, good_answer, play, reply

written = [0]
enough = threading.Event()


def flood():
    chunk = b"x" * 4096
    os.write(2, b"FIRST PART\n")
    goal = int(arg(2, "0"))
    try:
        while True:
            written[0] += os.write(2, chunk)
            if written[0] >= goal:
                enough.set()
    except OSError:
        pass  # the referee stopped reading


def start(msg):
    threading.Thread(target=flood, daemon=True).start()
    enough.wait(5)
    reply(good_answer(msg))


play(start)
