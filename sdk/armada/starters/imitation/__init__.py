"""The imitation-learning starter: `armada new NAME --game galaxy --starter imitation` (docs/imitation.md).

Not a bot by itself but a bot folder's files, which `armada new` copies: `main.py` (the bot:
loads `model.onnx` at start-up and plays what the model says), `train.py` (reads replays
downloaded with `armada dataset download`, trains the policy with PyTorch, exports
`model.onnx`), `encoding.py` (a copy of `armada.rl.galaxy_encoding`: the bot image has no
gymnasium, so the bot carries the very code its training encoded with) and `README.md`.
"""

from __future__ import annotations

from pathlib import Path

#: The starter's name (`--starter imitation`) and the games it plays.
NAME = "imitation"
GAMES = ("galaxy",)
HERE = Path(__file__).resolve().parent
#: The bot folder's files (a plain folder, not a package: nothing imports them).
FILES = HERE / "files"


def files() -> dict[str, Path]:
    """Name in the new bot folder -> the SDK's file copied there."""
    return {"main.py": FILES / "main.py", "train.py": FILES / "train.py",
            "encoding.py": HERE.parent.parent / "rl" / "galaxy_encoding.py", "README.md": FILES / "README.md"}
