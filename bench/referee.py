"""Referee overhead: a full local Galaxy match against the engine alone on the same answers.

Two minimal raw-protocol bots (they answer at once: no probes, no fleets) play Galaxy to
the 200-turn limit as local processes (ProcessBot). The same answers are then replayed
through the engine alone (`rebuild_states`), and one bot start-up (process + `init`
reply) is timed on its own. What is left per step is the referee's own cost: threads,
pipes, JSON framing, timing, replay recording. Our own bound (not from the project
brief): at most 5 ms per step, so a 400-step Galaxy match spends at most 2 s outside
the engine and the bots.

Run: .venv/bin/python bench/referee.py   (ends with one `target ...` line)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from armada.replay import rebuild_states, replay_bytes

BOUND_MS_PER_STEP = 5.0
SEED = 2024
PASS_BOT = """import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "end":
        break
    print(json.dumps({"id": msg["id"]}), flush=True)
"""


def startup_seconds(script: Path) -> float:
    """Time to start one bot and get its init reply."""
    bot = ProcessBot([sys.executable, str(script)])
    start = time.perf_counter()
    bot.start()
    bot.send(b'{"type":"init","id":0}\n')
    bot.read_line(time.monotonic() + 10)
    took = time.perf_counter() - start
    bot.close()
    return took


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "pass_bot.py"
        script.write_text(PASS_BOT)
        startup_s = min(startup_seconds(script) for _ in range(3))
        bots = {seat: ProcessBot([sys.executable, str(script)], label=f"pass{seat}") for seat in (1, 2)}
        start = time.perf_counter()
        outcome = play_match("galaxy", bots, seed=SEED, config={"max_turns": 200})
        match_s = time.perf_counter() - start
    steps = len(outcome.replay["steps"])

    start = time.perf_counter()
    rebuild_states(outcome.replay)
    engine_s = time.perf_counter() - start

    overhead_ms = (match_s - engine_s - startup_s) * 1000 / max(1, steps)
    print(f"galaxy, two pass bots, seed {SEED}: {outcome.result.outcome} after {outcome.result.turns} turns, "
          f"{steps} steps, replay {len(replay_bytes(outcome.replay))} bytes")
    print(f"full match (bots as processes):      {match_s:.3f} s")
    print(f"engine alone on the same answers:    {engine_s:.3f} s")
    print(f"one bot start-up (process + init):   {startup_s:.3f} s (bots start in parallel)")
    print(f"referee per step (the rest / steps): {overhead_ms:.2f} ms")
    verdict = "ok" if overhead_ms <= BOUND_MS_PER_STEP else "short"
    print()
    print(f"target referee-ms-per-step: {overhead_ms:.2f} <= {BOUND_MS_PER_STEP:g} {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
