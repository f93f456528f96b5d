"""Plays well, but ignores SIGTERM, the end message and the end of its input: it never exits."""
import json
import signal
import sys
import time

from _raw import good_answer, reply

signal.signal(signal.SIGTERM, signal.SIG_IGN)
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if msg["type"] != "end":
        reply(good_answer(msg))
while True:
    time.sleep(1)
