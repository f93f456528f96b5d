"""Train this bot's policy on downloaded replays and write model.onnx beside main.py (docs/imitation.md).

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # PyTorch, CPU build
    pip install "armada[learn] @ URL"    # onnx, onnxruntime, armada.rl; URL: the site's /sdk/ page
    cd ..                                             # outside the bot's folder: `armada submit` sends it all
    armada dataset download --game galaxy --limit 500 replays/
    python BOT/train.py replays/                      # a few minutes on a laptop's CPU
    armada play BOT builtin:greedy --game galaxy      # try it, then `armada submit BOT`

Every replay becomes per-turn (observation, reply) pairs (`armada.replay.read_dataset`), each
observation encoded by this folder's `encoding.py` (the bot's own, so an edited encoding is
trained with) and each reply the action standing for it (`action_of`); by default only the
winners' pairs are kept (a draw keeps both seats'). A small
network learns, for each of your planets, its target (nothing or a planet) and the share of
ships it sends; it is exported to ONNX and checked with onnxruntime against PyTorch.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

try:  # all of them now, not after minutes of training (the export needs onnx and onnxruntime)
    import numpy as np
    import onnx  # noqa: F401
    import onnxruntime  # noqa: F401
    import torch
    from torch import nn

    from armada.replay import ReplayError, read_dataset
    from armada.rl import galaxy_encoding
except ImportError as missing:
    try:
        from armada.extras import install_line
        extra = install_line("learn")
    except ImportError:
        extra = 'the SDK from your site\'s /sdk/ page with its "learn" extra'
    raise SystemExit(f"train.py needs PyTorch and the SDK's learn extra ({missing}): pip install torch --index-url "
                     f"https://download.pytorch.org/whl/cpu, then {extra} (docs: imitation)") from None

HERE = Path(__file__).resolve().parent
OUT = HERE / "model.onnx"


def load_encoding() -> Any:
    """This folder's encoding.py, the code main.py encodes with (armada.rl's without one)."""
    path = HERE / "encoding.py"
    spec = importlib.util.spec_from_file_location("encoding", path) if path.is_file() else None
    if spec is None or spec.loader is None:
        return galaxy_encoding
    module = importlib.util.module_from_spec(spec)
    sys.modules["encoding"] = module  # (its dataclasses look their module up while it runs)
    spec.loader.exec_module(module)
    return module


encoding = load_encoding()
PLANETS, FRACTIONS = encoding.PLANETS, encoding.FRACTIONS


class Policy(nn.Module):
    """Features in; per planet, scores of its target (0 nothing, 1..16) and of its bucket."""

    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(encoding.FLAT_SIZE, hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU())
        self.target = nn.Linear(hidden, PLANETS * (PLANETS + 1))
        self.bucket = nn.Linear(hidden, PLANETS * len(FRACTIONS))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(torch.log(x + 1.0))  # counts span 0..thousands: squash them
        return (self.target(h).reshape(-1, PLANETS, PLANETS + 1),
                self.bucket(h).reshape(-1, PLANETS, len(FRACTIONS)))


def pairs_of(folder: Path, winners_only: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features (N, FLAT_SIZE), actions (N, 16, 2) and own-planet masks (N, 16) of a dataset folder,
    encoded by `encoding` as the bot encodes its requests."""
    features, actions, mine = [], [], []
    for example in read_dataset(folder):
        replay = example.replay
        if replay["game"] != "galaxy":
            raise SystemExit(f"{example.row.get('file')}: a {replay['game']} replay; this bot learns galaxy")
        max_turns = int(replay["config"]["max_turns"])
        winner = replay["result"].get("winner")
        for seat, seat_pairs in example.pairs.items():
            if winners_only and winner is not None and seat != winner:
                continue
            memory: dict[str, Any] = {"seat": seat}
            for pair in seat_pairs:
                seen = encoding.encode(pair.observation, memory, max_turns=max_turns)
                features.append(encoding.flat(seen))
                actions.append(encoding.action_of(pair.reply, pair.observation, memory))
                mine.append(seen["planets"][:, 0] > 0)
    if not features:
        raise SystemExit(f"{folder}: no (observation, reply) pairs; download replays first "
                         "(armada dataset download --game galaxy DIR)")
    return np.stack(features), np.stack(actions), np.stack(mine)


def train(x: np.ndarray, actions: np.ndarray, mine: np.ndarray, epochs: int, seed: int) -> Policy:
    """The policy after `epochs` passes of Adam over the pairs (cross-entropy on own planets' rows)."""
    torch.manual_seed(seed)
    model = Policy()
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    xs, targets = torch.from_numpy(x), torch.from_numpy(actions[:, :, 0])
    buckets, rows = torch.from_numpy(actions[:, :, 1]), torch.from_numpy(mine)
    loss_of = nn.CrossEntropyLoss(reduction="none")
    for epoch in range(1, epochs + 1):
        order = torch.randperm(len(xs))
        total = right = counted = 0.0
        for start in range(0, len(xs), 256):
            batch = order[start:start + 256]
            target, bucket = model(xs[batch])
            mask = rows[batch].float()
            sent = mask * (targets[batch] > 0).float()
            loss = ((loss_of(target.transpose(1, 2), targets[batch]) * mask).sum()
                    + (loss_of(bucket.transpose(1, 2), buckets[batch]) * sent).sum()) / mask.sum().clamp(min=1)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(batch)
            right += float(((target.argmax(-1) == targets[batch]).float() * mask).sum())
            counted += float(mask.sum())
        print(f"epoch {epoch}/{epochs}: loss {total / len(xs):.3f}, "
              f"own planets' targets right {right / max(counted, 1):.1%}", flush=True)
    return model.eval()


def order_shares(model: Policy, x: np.ndarray, actions: np.ndarray, mine: np.ndarray) -> tuple[float, float]:
    """The share of own planets' rows where the model sends something (a target other than
    nothing), and the same share in the replies it learnt from."""
    rows = torch.from_numpy(mine)
    sent = 0.0
    with torch.no_grad():
        for start in range(0, len(x), 1024):
            target, _bucket = model(torch.from_numpy(x[start:start + 1024]))
            sent += float(((target.argmax(-1) > 0) & rows[start:start + 1024]).sum())
    own = max(float(rows.sum()), 1.0)
    return sent / own, float(((actions[:, :, 0] > 0) & mine).sum()) / own


def export(model: Policy, sample: np.ndarray, out: Path) -> None:
    """Write the model as ONNX (opset 17, the classic exporter) and check onnxruntime agrees with PyTorch."""
    import onnxruntime as ort

    part = out.with_name(out.name + ".part")
    arguments: dict[str, Any] = {
        "input_names": ["observation"], "output_names": ["target", "bucket"], "opset_version": 17,
        "dynamic_axes": {"observation": {0: "batch"}, "target": {0: "batch"}, "bucket": {0: "batch"}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch 2.x calls the classic exporter deprecated
        try:
            torch.onnx.export(model, (torch.from_numpy(sample),), str(part), dynamo=False, **arguments)
        except TypeError:  # a PyTorch older than 2.5 has no `dynamo` and only the classic exporter
            torch.onnx.export(model, (torch.from_numpy(sample),), str(part), **arguments)
    session = ort.InferenceSession(str(part), providers=["CPUExecutionProvider"])
    target, bucket = session.run(["target", "bucket"], {"observation": sample})
    with torch.no_grad():
        expected = model(torch.from_numpy(sample))
    same = [np.allclose(got, want.numpy(), atol=1e-4) for got, want in zip((target, bucket), expected, strict=True)]
    if not all(same):
        part.unlink()
        raise SystemExit("onnxruntime and PyTorch disagree on the exported model; nothing written")
    os.replace(part, out)


def check_encoding() -> None:
    """Say when the bot's encoding.py is not armada.rl's (edited, or another SDK's): training uses the bot's."""
    copy = HERE / "encoding.py"
    if copy.is_file() and copy.read_bytes() != Path(galaxy_encoding.__file__).read_bytes():
        print(f"note: training with {copy}, which differs from {galaxy_encoding.__file__}: the bot and its "
              "model agree, armada.rl's environments encode otherwise", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, metavar="DIR", help="a folder written by `armada dataset download`")
    parser.add_argument("--epochs", type=int, default=100, help="passes over the pairs (default: 100)")
    parser.add_argument("--all-seats", action="store_true", help="learn from losers' replies too")
    parser.add_argument("--seed", type=int, default=0, help="PyTorch's seed (default: 0)")
    parser.add_argument("--threads", type=int, default=1,
                        help="PyTorch's threads (default: 1, the fastest for a network this small)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the model file (default: {OUT.name} beside main.py)")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be at least 1, got {args.epochs}")
    if args.threads < 1:
        parser.error(f"--threads must be at least 1, got {args.threads}")
    if not args.out.parent.is_dir():
        parser.error(f"--out {args.out}: no folder {args.out.parent} to write it in")
    torch.set_num_threads(args.threads)
    check_encoding()
    started = time.monotonic()
    try:
        x, actions, mine = pairs_of(args.data, winners_only=not args.all_seats)
    except ReplayError as exc:  # a missing or damaged dataset: say so, no traceback
        raise SystemExit(f"train.py: {exc}") from None
    print(f"{len(x)} pairs read in {time.monotonic() - started:.1f} s", flush=True)
    model = train(x, actions, mine, args.epochs, args.seed)
    model_share, data_share = order_shares(model, x, actions, mine)
    print(f"the model sends ships from {model_share:.0%} of its own planets' rows (the replies it learnt from: "
          f"{data_share:.0%})")
    if data_share > 0 and model_share < data_share / 4:
        print("warning: the model hardly ever sends anything, so a bot with it would sit still and lose; train "
              f"longer (--epochs, {args.epochs} now) or on more replays", file=sys.stderr)
    export(model, x[:8], args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # the model file before it is left as it was (written aside, then renamed)
        sys.exit("train.py: interrupted; nothing written")
