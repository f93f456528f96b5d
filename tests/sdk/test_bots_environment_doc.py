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
