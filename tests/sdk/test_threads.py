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
