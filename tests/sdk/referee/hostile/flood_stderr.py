"""Writes argv[2] MiB (default 20) to stderr at request `when`, then answers correctly."""
import sys

from _raw import arg, good_answer, play, reply


def flood(msg):
    block = (b"spam " * 200 + b"\n") * 1024  # about 1 MiB
    sys.stderr.buffer.write(b"FIRST LINE\n")
    for _ in range(int(arg(2, "20"))):
        sys.stderr.buffer.write(block)
    sys.stderr.buffer.write(b"LAST LINE\n")
    sys.stderr.buffer.flush()
    reply(good_answer(msg))


play(flood)
