"""Tiny protocol-level bots for CLI tests, written without the bot library."""

from __future__ import annotations

from pathlib import Path

#: Galaxy bot that never probes nor moves (the game runs to its turn limit or is lost).
IDLE_GALAXY = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "init":
        reply = {"id": msg["id"], "name": "Idle"}
    elif msg["type"] == "scout":
        reply = {"id": msg["id"], "probes": []}
    elif msg["type"] == "command":
        reply = {"id": msg["id"], "fleets": []}
    else:
        break
    print(json.dumps(reply), flush=True)
'''

#: Answers init, then writes to its log and exits with code 3.
CRASH_AFTER_INIT = '''
import json, sys
msg = json.loads(sys.stdin.readline())
print(json.dumps({"id": msg["id"], "name": "Crasher"}), flush=True)
sys.stdin.readline()
print("boom: this bot gives up", file=sys.stderr, flush=True)
sys.exit(3)
'''

#: Mothership bot with fixed orders (the Ziltoidians of MD-9).
FIXED_MOTHERSHIP = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "init":
        reply = {"id": msg["id"], "name": "Ziltoid"}
    elif msg["type"] == "orders":
        fighter = {"attack": 7, "defence": 5, "pattern": [2, 2, 3]}
        reply = {"id": msg["id"], "mothership": {"defence": 40}, "fighters": [fighter] * 5}
    else:
        break
    print(json.dumps(reply), flush=True)
'''


def write_bot(folder: Path, source: str, name: str = "main.py") -> Path:
    """Create `folder/name` holding `source`; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(source.lstrip(), encoding="utf-8")
    return folder


def without_time(summary: dict) -> dict:
    """A match summary without the seats' time used and memory peak (what differs between two runs,
    and between the sandbox, which measures the peak, and local processes)."""
    return {**summary, "players": [{k: v for k, v in p.items() if k not in ("time", "memory_peak_mib")}
                                   for p in summary["players"]]}


#: A library bot whose scout raises from turn 3 on; its command sends one order from a planet it does not own.
CLUMSY_GALAXY = '''
from armada.bot.galaxy import FleetOrder, GalaxyBot
from armada.bot.runtime import run


class Bot(GalaxyBot):
    name = "Clumsy"

    def scout(self, obs):
        if obs.turn >= 3:
            return [1 // 0]
        return [obs.home]  # an own planet: dropped with a warning (GX-8)

    def command(self, obs, intel, warnings):
        self.log("thinking about turn", obs.turn)
        return [FleetOrder(8, 7, 0, 1)]  # not ours: dropped with a warning (GX-10)


if __name__ == "__main__":
    run(Bot())
'''

#: A file that does not compile.
SYNTAX_ERROR = '''
import json

def broken(:
    pass
'''

#: Writes its reply but never flushes it (no PYTHONUNBUFFERED in a bot's environment).
NO_FLUSH = '''
import json, sys
msg = json.loads(sys.stdin.readline())
sys.stdout.write(json.dumps({"id": msg["id"]}) + "\\n")
sys.stdin.readline()
'''
