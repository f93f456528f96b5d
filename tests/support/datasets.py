"""A tiny replay dataset made locally, in the folder form `armada dataset download` writes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import armada
from armada.replay import MANIFEST, write_replay


def tiny_galaxy_dataset(folder: Path, games: int = 2, max_turns: int = 12) -> Path:
    """`games` Galaxy games of the greedy and prober starters (seats alternating), with a manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for seed in range(1, games + 1):
        seats = ["builtin:greedy", "builtin:prober"][:: 1 if seed % 2 else -1]
        outcome = armada.run("galaxy", seats, seed=seed, config={"max_turns": max_turns})
        path = folder / f"{seed}.json.gz"
        write_replay(outcome.replay, path)
        rows.append({"match": seed, "seed": seed, "file": path.name,
                     "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    (folder / MANIFEST).write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return folder
