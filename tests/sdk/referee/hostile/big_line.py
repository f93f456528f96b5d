"""Answers request `when` with a 2 MiB line (a valid reply, padded)."""
from _raw import play, write


def big(msg):
    write(b'{"id": %d, "n": 1, "pad": "' % msg["id"] + b"x" * (2 * 1024 * 1024) + b'"}\n')


play(big)
