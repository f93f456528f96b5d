"""Tiny protocol helper for the hostile test bots (no SDK needed; mothership orders only)."""

import errno
import json
import sys

ORDERS = {
    "mothership": {"defence": 40},
    "fighters": [{"attack": 7, "defence": 5, "pattern": [2, 2, 3]} for _ in range(5)],
}


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def err_name(exc):
    code = getattr(exc, "errno", None)
    return errno.errorcode.get(code, str(code)) if code else type(exc).__name__


def read():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def reply(msg, **fields):
    sys.stdout.write(json.dumps({"id": msg["id"], **fields}) + "\n")
    sys.stdout.flush()


def play(name, on_init=None, on_orders=None, on_end=None):
    """Answer init with `name` (after `on_init()`), call `on_orders()` before each orders reply."""
    msg = read()
    if on_init:
        on_init()
    reply(msg, name=name)
    while True:
        msg = read()
        if msg["type"] == "end":
            if on_end:
                on_end()
            return
        if on_orders:
            on_orders()
        reply(msg, **ORDERS)
