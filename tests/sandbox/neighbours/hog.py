"""`spin`: start 30 processes spinning on the CPU; `rest`: kill them. Answers `ok` to each."""
import os
import signal
import sys

children = []
for line in sys.stdin:
    if line.strip() == "spin" and not children:
        for _ in range(30):
            pid = os.fork()
            if pid == 0:
                while True:
                    pass
            children.append(pid)
    elif line.strip() == "rest":
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        children = []
    print("ok", flush=True)
