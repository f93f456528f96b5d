"""Raw protocol helpers for the hostile test bots (no bot library, so they can break every rule).

Each hostile bot plays the sum race correctly (always n=1) until the request whose id is
argv[1] (default 1; 0 is init), where it does its one bad thing.
"""

import json
import sys


def when() -> int:
    return int(sys.argv[1]) if len(sys.argv) > 1 else 1


def arg(index: int, default: str) -> str:
    return sys.argv[index] if len(sys.argv) > index else default


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def reply(obj: dict) -> None:
    write(json.dumps(obj).encode() + b"\n")


def good_answer(msg: dict) -> dict:
    if msg["type"] == "init":
        return {"id": msg["id"], "name": "Hostile"}
    return {"id": msg["id"], "n": 1}


def play(misbehave) -> None:
    """Answer every request well, except request `when()`, which goes to `misbehave(msg)`."""
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        if msg["type"] == "end":
            return
        if msg["id"] == when():
            misbehave(msg)
            continue
        reply(good_answer(msg))
