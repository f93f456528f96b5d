"""Answers request `when` with a reply nested 100000 levels deep (well under the line cap)."""
from _raw import play, write


def nested(msg):
    depth = 100_000
    write(b'{"id": %d, "n": 1, "deep": ' % msg["id"] + b"[" * depth + b"]" * depth + b"}\n")


play(nested)
