"""Fills /tmp until it is full, then tries to run a program from it.

Logs `TMP full after <n> bytes (<reason>)` and `EXEC /tmp: denied (<reason>)` or `EXEC /tmp: RAN`.
"""
import os
import subprocess

from _proto import err_name, log, play


def fill():
    written = 0
    chunk = b"\x01" * (1 << 20)
    try:
        with open("/tmp/fill", "wb") as f:
            while written < (1 << 30):
                f.write(chunk)
                f.flush()
                written += len(chunk)
    except OSError as exc:
        log(f"TMP full after {written} bytes ({err_name(exc)})")
    else:
        log(f"TMP NEVER FULL: {written} bytes")
    os.remove("/tmp/fill")
    with open("/tmp/run.sh", "w") as f:
        f.write("#!/bin/sh\necho ran\n")
    os.chmod("/tmp/run.sh", 0o755)
    try:
        subprocess.run(["/tmp/run.sh"], check=True, capture_output=True)
    except OSError as exc:
        log(f"EXEC /tmp: denied ({err_name(exc)})")
    else:
        log("EXEC /tmp: RAN")


play("Hoarder", on_orders=fill)
