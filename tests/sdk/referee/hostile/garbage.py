"""Answers request `when` with the line argv[2] (default: not JSON at all)."""
from _raw import arg, play, write


def garbage(msg):
    write(arg(2, "hello, referee").replace("ID", str(msg["id"])).encode() + b"\n")


play(garbage)
