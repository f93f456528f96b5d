"""The referee's own CPU when a bot floods it, against a plain match (issue 12).

Galaxy, builtin:greedy against itself (200 turns), both as local processes (the referee's code is
the same for Docker; processes keep the Docker client's own CPU out of the measure). Seat 1
is the plain starter, or the same starter with a thread that floods, for the whole match:

- stderr: endless small writes without a newline (the stderr cap and the log reader's pause);
- stale: endless `{"id": 0}` lines on stdout (the stale bound, the unread-line bound and the
  output cap).

The measure is the referee's CPU (this process: the referee loop, the engine, the reader
threads) for the whole match, flood against plain. A flood the referee stops ends the
match early: that is the point (before issue 12 the stale flood played on until the 64 MiB
output cap, the stderr flood for the whole match).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from armada.botspec import resolve_bot, starter_file
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot

BOUND = 2.0
SEED = 5
FLOODS = {
    "stderr": "import os\ndef flood():\n    while True:\n        os.write(2, b'x' * 16)\n",
    "stale": ("import os\ndef flood():\n    line = b'{\"id\": 0}\\n' * 100\n"
              "    while True:\n        os.write(1, line)\n"),
}
WRAPPER = """import runpy, threading
{flood}
threading.Thread(target=flood, daemon=True).start()
runpy.run_path({starter!r}, run_name="__main__")
"""


def cost(seat1: ProcessBot) -> tuple[float, float, str]:
    """(referee CPU seconds, wall seconds, what happened) of one Galaxy match with `seat1`."""
    opponent = resolve_bot("builtin:greedy", "galaxy")
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        outcome = play_match("galaxy", {1: seat1, 2: opponent.process_connection()}, seed=SEED)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        opponent.close()
    first = outcome.players[0]
    return cpu, wall, f"{outcome.result.turns} turns, seat 1 {first.status} {first.detail[:70]}"


def main() -> list[str]:
    """Print the measures; return the target lines."""
    plain_src = resolve_bot("builtin:greedy", "galaxy")
    try:
        results = {"plain": cost(plain_src.process_connection())}
    finally:
        plain_src.close()
    with tempfile.TemporaryDirectory(prefix="armada-bench-flood-") as tmp:
        for name, flood in FLOODS.items():
            script = Path(tmp) / f"{name}.py"
            script.write_text(WRAPPER.format(flood=flood, starter=str(starter_file("greedy", "galaxy"))))
            results[name] = cost(ProcessBot.for_script(script, label=f"{name} flood"))
    plain_cpu = results["plain"][0]
    lines = []
    for name, (cpu, wall, what) in results.items():
        print(f"   {name:7s} referee cpu {cpu:6.2f} s in a match of {wall:6.2f} s  ({what})")
        if name != "plain":
            ratio = cpu / plain_cpu
            verdict = "ok" if ratio <= BOUND else "short"
            lines.append(f"target referee-cpu-{name}-flood: {ratio:.2f} <= {BOUND:g} {verdict}")
    return lines


if __name__ == "__main__":
    for line in main():
        print(line)
