"""An imitation-learned Galaxy bot: the policy `train.py` learnt from replays, run by onnxruntime.

At start-up it loads `model.onnx` from its own folder (train.py writes it there). For every
request it encodes what it sees with `encoding.py` (the same code train.py encoded the
replays with), asks the model for each planet's target and bucket scores, takes the best of
each and decodes them into a valid reply. Needs only numpy and onnxruntime, as on the server.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import encoding
import numpy as np
import onnxruntime as ort

from armada.bot.base import BaseBot
from armada.bot.runtime import run

MODEL = Path(__file__).resolve().parent / "model.onnx"


def load(path: Path) -> ort.InferenceSession:
    """The model, on as many threads as the bot's CPU share (onnxruntime does not read OMP_NUM_THREADS)."""
    if not path.is_file():
        print(f"[armada] no {path.name} beside main.py: run `python train.py REPLAYS_DIR` first (docs: imitation)",
              file=sys.stderr, flush=True)
        raise SystemExit(1)
    options = ort.SessionOptions()
    options.intra_op_num_threads = int(os.environ.get("OMP_NUM_THREADS", "1"))
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: warnings would fill the bot's log
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # a damaged or truncated file: onnxruntime's reason, then what to do, last
        # (last, so that the few lines of a log a match shows end with it, not with a traceback; as an
        # "[armada]" note, the site's version page and armada.rl's opponent_fault give it as the reason)
        print(f"onnxruntime: {type(exc).__name__}: {str(exc).strip()[:500]}", file=sys.stderr)
        print(f"[armada] {path.name} beside main.py cannot be loaded (damaged, truncated or not an ONNX model): run "
              "`python train.py REPLAYS_DIR` again or copy the file again", file=sys.stderr, flush=True)
        raise SystemExit(1) from None


class Bot(BaseBot):
    game = "galaxy"
    name = "Imitation"

    def __init__(self) -> None:
        self.model = load(MODEL)
        size = self.model.get_inputs()[0].shape[1]
        if size != encoding.FLAT_SIZE:
            raise SystemExit(f"{MODEL.name} takes {size} features, encoding.py gives {encoding.FLAT_SIZE}: "
                             "train again with this encoding.py")
        self.memory: dict[str, Any] = {}
        self.max_turns = 0

    def on_init(self, init: dict[str, Any]) -> None:
        self.max_turns = int(init["config"]["max_turns"])

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        seen = encoding.encode(request, self.memory, max_turns=self.max_turns)
        target, bucket = self.model.run(["target", "bucket"], {"observation": encoding.flat(seen)[None, :]})
        action = np.stack([target[0].argmax(-1), bucket[0].argmax(-1)], axis=-1)
        return encoding.decode(action, request, self.memory)

    def fallback(self, request: dict[str, Any]) -> dict[str, Any]:
        """Do nothing this step rather than crash (the traceback is in the log)."""
        return {"probes": []} if request.get("type") == "scout" else {"fleets": []}


if __name__ == "__main__":
    run(Bot())
