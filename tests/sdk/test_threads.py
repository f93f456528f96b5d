"""`armada.threads`: onnxruntime's pools held to the bot's CPU share (the bot image installs it at
every Python start; a security review saw a session start threads for the host's cores)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx", reason="the learn extra (onnx) builds the test model")

SDK = Path(__file__).resolve().parents[2] / "sdk"

PROBE = """
import json, sys
import armada.threads
armada.threads.install()
import importlib.resources
import onnxruntime as ort
model = sys.argv[1]
plain = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).get_session_options()
own = ort.SessionOptions()
own.intra_op_num_threads = 3
keyword = ort.InferenceSession(model, sess_options=own, providers=["CPUExecutionProvider"]).get_session_options()
armada.threads.install()  # again, after the import: no second wrapper
again = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).get_session_options()
print(json.dumps({"plain": [plain.intra_op_num_threads, plain.inter_op_num_threads],
                  "own": keyword.intra_op_num_threads, "again": again.intra_op_num_threads,
                  "resources": importlib.resources.files("onnxruntime").joinpath("__init__.py").is_file()}))
"""


def identity_model(path: Path) -> Path:
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.write_bytes(model.SerializeToString())
    return path


@pytest.mark.parametrize("share", ["1", "2"])
def test_a_session_without_thread_counts_gets_the_share_and_a_bots_own_counts_stay(tmp_path: Path, share: str):
    pytest.importorskip("onnxruntime")
    model = identity_model(tmp_path / "id.onnx")
    env = {**os.environ, "OMP_NUM_THREADS": share, "PYTHONPATH": str(SDK)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(model)], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    report = json.loads(done.stdout)
    assert report == {"plain": [int(share), 1], "own": 3, "again": int(share), "resources": True}


def test_a_search_that_imports_nothing_does_not_use_the_hook_up(tmp_path: Path):
    """`torch.compile` looks onnxruntime up without importing it: the later import is still held
    (a review: the hook removed itself at the first search)."""
    pytest.importorskip("onnxruntime")
    model = identity_model(tmp_path / "id.onnx")
    probe = ("import importlib.util, sys, armada.threads\n"
             "armada.threads.install()\n"
             "assert importlib.util.find_spec('onnxruntime') is not None\n"
             "import onnxruntime as ort\n"
             "print(ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])"
             ".get_session_options().intra_op_num_threads)\n")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(SDK)}
    done = subprocess.run([sys.executable, "-c", probe, str(model)], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "1"


def test_the_images_copy_imports_nothing_of_armada(tmp_path: Path):
    """The image runs the hook at every start as `_armada_threads`: a bot's own `armada.py` beside its
    main.py must still be the `armada` it imports (a review: `import armada.threads` loaded the SDK's)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "_armada_threads.py").write_text((SDK / "armada" / "threads.py").read_text())
    (site / "hook.pth").write_text("import _armada_threads; _armada_threads.install()\n")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "armada.py").write_text("def helper():\n    return 'mine'\n")
    (bot / "main.py").write_text("import sys, armada\nprint(armada.helper(), 'armada.threads' in sys.modules)\n")
    script = f"import site, runpy; site.addsitedir({str(site)!r}); runpy.run_path('main.py', run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", script], cwd=bot, env={**os.environ, "PYTHONPATH": str(bot)},
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["mine", "False"]
