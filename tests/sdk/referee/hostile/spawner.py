"""Starts a long-sleeping child (its pid goes to the file argv[2]), then plays well and exits."""
import subprocess
import sys

from _raw import arg, good_answer, play, reply

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open(arg(2, "child.pid"), "w") as f:
    f.write(str(child.pid))
play(lambda msg: reply(good_answer(msg)))
