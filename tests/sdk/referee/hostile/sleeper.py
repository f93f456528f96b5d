"""Sleeps argv[2] ms before answering requests when..when+argv[3]-1; logs the bank it is told."""
import json
import sys
import time

from _raw import arg, good_answer, reply, when

first, count, sleep_ms = when(), int(arg(3, "1")), int(arg(2, "0"))
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if msg["type"] == "end":
        break
    if "bank_ms" in msg:
        print(f"bank_ms={msg['bank_ms']} id={msg['id']}", file=sys.stderr, flush=True)
    if first <= msg["id"] < first + count:
        time.sleep(sleep_ms / 1000)
    reply(good_answer(msg))
