"""Answers request `when` with a line that is not valid UTF-8."""
from _raw import play, write


def bad(msg):
    write(b'{"id": %d, "n": 1, "x": "\xff\xfe"}\n' % msg["id"])


play(bad)
