"""Writes its orders without the final newline, then waits."""
import json
import sys
import time

from _proto import ORDERS, read, reply

reply(read(), name="No Newline")
msg = read()
sys.stdout.write(json.dumps({"id": msg["id"], **ORDERS}))
sys.stdout.flush()
time.sleep(3600)
