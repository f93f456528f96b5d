"""Writes are keyword-only functions (docs/architecture.md, "Names"): every public function at the top
of an app's `services.py` takes its arguments by keyword only, so a call names each argument and two of
one type cannot be swapped unseen. The check reads the source with `ast`, as test_layers does."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "platform" / "armada_web"


def positional_services(root: Path) -> list[str]:
    """Public top-level functions of the `services.py` modules under `root` with a positional parameter."""
    problems = []
    for path in sorted(root.rglob("services.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
                if positional or node.args.vararg is not None:
                    problems.append(f"{path.relative_to(root)}:{node.lineno} {node.name}({', '.join(positional)}, ...) "
                                    "takes positional arguments: make them keyword-only (def f(*, ...))")
    return problems


def test_every_service_function_is_keyword_only():
    assert sorted(p.parent.name for p in PACKAGE.glob("*/services.py")), "no services.py found"
    assert positional_services(PACKAGE) == []


def test_the_check_catches_a_positional_service(tmp_path: Path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "services.py").write_text(
        "def good(*, bot):\n    pass\n\ndef _helper(bot):\n    pass\n\ndef bad(bot, *, user):\n    pass\n")
    assert positional_services(tmp_path) == [
        "bots/services.py:7 bad(bot, ...) takes positional arguments: make them keyword-only (def f(*, ...))"]
