"""The `>>>` examples of docs/cli.md, docs/bot-library.md and docs/rl.md run as doctests and show real output."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
_BLOCK = re.compile(r"```pycon\n(.*?)```", re.S)


@pytest.mark.parametrize("name", ["cli.md", "bot-library.md", "rl.md"])
def test_examples_run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = _BLOCK.findall((DOCS / name).read_text(encoding="utf-8"))
    assert blocks, f"{name} has no ```pycon examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs: dict[str, object] = {}
    for index, block in enumerate(blocks):
        test = parser.get_doctest(block, globs, f"{name}[{index}]", name, 0)
        runner.run(test, clear_globs=False)
        globs.update(test.globs)  # later blocks go on with the names of earlier ones
    assert runner.failures == 0, f"{runner.failures} example(s) of {name} failed (see the output above)"
