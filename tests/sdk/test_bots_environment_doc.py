"""docs/bots-environment.md: linked from the README and the bot library docs, its variables those of the SDK."""

from __future__ import annotations

import re
from pathlib import Path

from armada.referee.environment import bot_environment

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "bots-environment.md"


def test_linked_from_readme_and_bot_library() -> None:
    assert "docs/bots-environment.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(bots-environment.md)" in (ROOT / "docs" / "bot-library.md").read_text(encoding="utf-8")


def test_the_variables_table_lists_exactly_the_sdk_environment() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    listed = {name for row in rows for name in re.findall(r"`([A-Z_]+)`", row.split("|")[1])}
    assert listed == set(bot_environment(sandbox="docker", workdir="/bot", home="/tmp", seed=1))


def test_the_ml_stack_table_lists_the_sdks_server_versions() -> None:
    from armada.stack import LIBRARIES, SERVER

    section = DOC.read_text(encoding="utf-8").split("## The ML stack", 1)[1].split("\n### ", 1)[0]
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| library")}
    assert rows["Python"] == SERVER["python"]
    shown = {"numpy": "numpy", "torch": "PyTorch (CPU only)", "scikit-learn": "scikit-learn",
             "onnxruntime": "onnxruntime (CPU)"}
    for lib in LIBRARIES:
        assert rows[shown[lib.name]].split()[0] == SERVER[lib.name], lib.name


def test_the_onnx_example_runs_as_written_with_the_learn_extras_pytorch(tmp_path, monkeypatch) -> None:
    """A trial's competitor ran the export block as shown and PyTorch 2.13 wanted onnxscript: the doc's
    own two blocks (export where you trained, load and act in the bot) must run as they stand."""
    torch = __import__("pytest").importorskip("torch", reason="the dev extra installs torch (pyproject.toml)")
    text = DOC.read_text(encoding="utf-8")
    block = text.split("**1. ONNX, run by onnxruntime (recommended).**", 1)[1].split("```python\n", 1)[1]
    code = block.split("```", 1)[0]
    train, bot = code.split("# in the bot (main.py), at start-up:", 1)
    monkeypatch.chdir(tmp_path)
    size = 7
    policy = torch.nn.Sequential(torch.nn.Linear(size, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    space: dict[str, object] = {"policy": policy, "OBS_SIZE": size}
    exec(compile(train, "bots-environment.md (export)", "exec"), space)  # the doc's own code
    assert (tmp_path / "policy.onnx").stat().st_size > 0
    exec(compile(bot, "bots-environment.md (bot)", "exec"), space)
    import numpy as np

    features = np.linspace(-1, 1, size).astype(np.float64)
    with torch.no_grad():
        expected = int(policy(torch.from_numpy(features.astype(np.float32))[None, :])[0].argmax())
    assert space["act"](features) == expected  # type: ignore[operator]
