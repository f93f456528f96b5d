"""Engine speed: Galaxy vs kaggle-environments' planet wars, and a full Mothership Down league.

Run: .venv/bin/python bench/engines.py   (ends with one `target ...` line per target)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _galaxy
import _mothership


def main() -> int:
    targets: list[str] = []
    targets += _galaxy.run(print)
    targets += _mothership.run(print)
    print()
    for line in targets:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
