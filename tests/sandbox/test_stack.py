"""The ML stack of the bot image, in the sandbox (docs/bots-environment.md, "The ML stack"): the
versions the SDK lists, threads pinned to the CPU share, both documented model forms loading,
the memory peak measured, and the clear failures: out of memory while loading (status `memory`,
its peak and limit), a module the image lacks (the traceback and what there is instead)."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest

from armada import stack
from armada.referee.clock import Limits
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from armada_sandbox import DockerBot, SandboxLimits
from tests.sandbox.conftest import run_labels
from tests.sdk.cli.bots import IDLE_GALAXY

pytestmark = pytest.mark.docker

#: Imports the stack, saves and loads a model in both documented forms (a plain module's state
#: dict; ONNX run by onnxruntime with the thread count of the environment, as the docs' example),
#: fits a scikit-learn model, then reports on one stdout line and waits for its input to close.
PROBE = """
import json, os, sys
import numpy as np, torch, sklearn, onnxruntime as ort
from sklearn.linear_model import LogisticRegression
from armada import stack

def policy():
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))

torch.manual_seed(1)
net = policy().eval()
torch.save(net.state_dict(), "/tmp/policy.pt")
copy = policy().eval()
copy.load_state_dict(torch.load("/tmp/policy.pt", weights_only=True))
x = torch.linspace(-1, 1, 8).reshape(1, 8)
torch.onnx.export(net, x, "/tmp/policy.onnx", input_names=["obs"], output_names=["logits"], opset_version=17)
options = ort.SessionOptions()
options.intra_op_num_threads = int(os.environ.get("OMP_NUM_THREADS", "1"))
options.inter_op_num_threads = 1
session = ort.InferenceSession("/tmp/policy.onnx", options, providers=["CPUExecutionProvider"])
onnx_out = session.run(None, {"obs": x.numpy()})[0]
plain = ort.InferenceSession("/tmp/policy.onnx", providers=["CPUExecutionProvider"]).get_session_options()
with torch.no_grad():
    torch_out = net(x).numpy()
    copy_out = copy(x).numpy()
fit = LogisticRegression().fit(np.array([[0.0], [1.0], [2.0], [3.0]]), [0, 0, 1, 1])
print(json.dumps({
    "versions": stack.installed_versions(),
    "torch_threads": torch.get_num_threads(),
    "onnx_default_threads": [plain.intra_op_num_threads, plain.inter_op_num_threads],
    "env": {name: os.environ.get(name) for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")},
    "state_dict_equal": bool(np.array_equal(copy_out, torch_out)),
    "onnx_close": bool(np.allclose(onnx_out, torch_out, atol=1e-5)),
    "sklearn": int(fit.predict([[2.5]])[0]),
}), flush=True)
sys.stdin.read()
"""


def write(folder: Path, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.py").write_text(textwrap.dedent(source).lstrip())
    folder.chmod(0o755)
    (folder / "main.py").chmod(0o644)
    return folder


def test_the_stack_is_the_sdks_pinned_to_the_cpu_share_and_loads_both_model_forms(docker_client, tmp_path):
    bot = DockerBot(write(tmp_path / "probe", PROBE), label="probe", labels=run_labels(), warm=False)
    try:
        bot.start()
        line = bot.read_line(time.monotonic() + 120)
        assert line is not None, bot.log()[-2000:]
        report = json.loads(line)
        assert bot.lease is not None
        share = bot.limits.threads(bot.lease.slot.cpuset)
        peak = bot.memory_peak_bytes()
    finally:
        bot.close()
    assert report["versions"] == stack.SERVER  # what `armada env` and the docs say is what bots get
    assert share == 1 and report["torch_threads"] == share
    assert report["onnx_default_threads"] == [share, 1]  # a session without options: not the host's cores
    assert report["env"] == {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    assert report["state_dict_equal"] and report["onnx_close"] and report["sklearn"] == 1
    assert peak is not None and 100 << 20 < peak < bot.limits.memory_bytes  # the stack alone: ~170 MiB


def idle_opponent(tmp_path: Path) -> ProcessBot:
    return ProcessBot.for_script(write(tmp_path / "idle", IDLE_GALAXY) / "main.py")


def test_out_of_memory_while_loading_is_status_memory_with_its_peak_and_limit(docker_client, tmp_path):
    hog = write(tmp_path / "hog", """
        import numpy as np
        weights = np.ones((96, 1024, 1024), dtype=np.uint8)  # "loading" 96 MiB, 32 MiB over its limit
        print("never reached")
    """)
    limits = SandboxLimits(memory_mb=64, tmp_mb=4)
    bots = {1: DockerBot(hog, label="hog", limits=limits, labels=run_labels(), warm=False), 2: idle_opponent(tmp_path)}
    outcome = play_match("galaxy", bots, seed=1, config={"max_turns": 2}, limits=Limits(30000, 1000, 1000))
    mine = outcome.players[0]
    assert mine.status == "memory"
    assert mine.detail == ("killed for exceeding its memory limit (peak 64 MiB, limit 64 MiB); "
                           "stopped before answering init (id 0)")
    assert mine.memory_peak_bytes == limits.memory_bytes


def test_a_module_the_image_lacks_gives_the_traceback_and_what_there_is(docker_client, tmp_path):
    bot = write(tmp_path / "tf", "import tensorflow\n")
    bots = {1: DockerBot(bot, label="tf", labels=run_labels(), warm=False), 2: idle_opponent(tmp_path)}
    outcome = play_match("galaxy", bots, seed=1, config={"max_turns": 2}, limits=Limits(30000, 1000, 1000))
    mine = outcome.players[0]
    assert mine.status == "crashed"
    assert 'File "/bot/main.py", line 1' in mine.log
    assert "ModuleNotFoundError: No module named 'tensorflow'" in mine.log
    last = mine.log.strip().splitlines()[-1]
    assert last.startswith("[armada] no module named 'tensorflow' in the bot's files or on the server")
    for lib in stack.LIBRARIES:
        listed = f"{lib.module} {stack.SERVER[lib.name]}"
        assert listed in last and listed in mine.detail


@pytest.mark.parametrize("loader", ["torch", "onnxruntime"])
def test_a_truncated_model_file_is_the_bots_own_crash_with_its_traceback(docker_client, tmp_path, loader):
    """Issue 25: a corrupt or truncated model file gives the bot's own traceback in its log, status
    crashed, and nothing else is affected (its opponent plays on)."""
    load = {"torch": "import torch\nweights = torch.load('model.bin')\n",
            "onnxruntime": "import onnxruntime\nsession = onnxruntime.InferenceSession('model.bin')\n"}[loader]
    bot = write(tmp_path / "cut", load)
    (bot / "model.bin").write_bytes(b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(200)))  # cut short
    (bot / "model.bin").chmod(0o644)
    bots = {1: DockerBot(bot, label="cut", labels=run_labels(), warm=False), 2: idle_opponent(tmp_path)}
    outcome = play_match("galaxy", bots, seed=1, config={"max_turns": 2}, limits=Limits(30000, 1000, 1000))
    mine, theirs = outcome.players
    assert mine.status == "crashed" and "stopped before answering init" in mine.detail
    assert "Traceback (most recent call last)" in mine.log and 'File "/bot/main.py", line 2' in mine.log
    assert theirs.status == "ok" and outcome.result.winner == 2


def test_every_module_armada_play_takes_as_the_images_is_there(docker_client, tmp_path):
    """`armada play` notes no import of `stack.IMAGE_EXTRAS` (the stack's own dependencies) as
    missing on the server: each must be found there."""
    finder = write(tmp_path / "finder", f"""
        import importlib.util, json, sys
        print(json.dumps([m for m in {list(stack.IMAGE_EXTRAS)!r} if importlib.util.find_spec(m) is None]), flush=True)
        sys.stdin.read()
    """)
    bot = DockerBot(finder, label="finder", labels=run_labels(), warm=False)
    try:
        bot.start()
        line = bot.read_line(time.monotonic() + 120)
        assert line is not None, bot.log()[-2000:]
    finally:
        bot.close()
    assert json.loads(line) == []
