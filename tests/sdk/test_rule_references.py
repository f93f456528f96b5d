"""No doc or comment points at a rules file outside the repository: docs/games/ is the rule book."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: `games.md` alone (the project's shared page, not shipped), `shared/...`, the original seed texts.
OUTSIDE = re.compile(r"(?:^|[^/\w-])games\.md|\bshared/|\bseeds/0")


def test_rule_references_stay_inside_the_repository() -> None:
    files = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "sdk" / "armada").rglob("*.py"),
             *(ROOT / "tests").rglob("*.py")]
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in files if path != Path(__file__)
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if OUTSIDE.search(line)]
    assert found == []
    assert (ROOT / "docs" / "games" / "galaxy.md").is_file() and (ROOT / "docs" / "games" / "mothership.md").is_file()
