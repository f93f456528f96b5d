"""docs/architecture.md stays true: each function its walk-throughs name exists (their order is not
checked: a reader reads it)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
#: A numbered step: "N. `module.function`: what it does".
STEP = re.compile(r"^\d+\. `([a-z_.]+(?:\.[A-Za-z_]+)*)`")


def steps(section: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start:end if end != -1 else None]
    names: list[str] = []
    for line in body.splitlines():
        match = STEP.match(line)
        if match:
            names.append(match.group(1))
    return names


def resolve(dotted: str) -> object:
    """`armada_web.<dotted>` as an object: the longest importable module prefix, then attributes."""
    parts = f"armada_web.{dotted}".split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            target = getattr(target, attribute)
        return target
    raise AssertionError(f"nothing importable in {dotted}")


@pytest.mark.parametrize("section", ["One upload, one read", "One match, one read", "One finals match, one read"])
def test_each_named_function_exists(section):
    names = steps(section)
    assert len(names) >= 10, names
    for name in names:
        target = resolve(name)
        assert callable(target), f"{name} in docs/architecture.md is not a function or class"


def test_a_wrong_name_would_fail():
    with pytest.raises(AttributeError):
        resolve("matches.execution.no_such_function")


PACKAGE = DOC.parents[1] / "platform" / "armada_web"


def layout_rows() -> dict[str, list[str]]:
    """The layout table: {package: the files and folders its row names} (a row of two packages
    names its files with their package: `seasons/finals.py`)."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## The platform's layout\n")
    rows: dict[str, list[str]] = {}
    for line in text[start:text.index("\n### ", start)].splitlines():
        cells = line.split("|")
        if len(cells) < 4 or not cells[2].strip().startswith("`"):
            continue
        for package in re.findall(r"`([a-z_]+)/`", cells[2]):
            rows[package] = re.findall(r"`([a-z_/]+(?:\.py|/))`", cells[3])
    return rows


def test_the_layout_table_names_every_package_and_only_what_exists():
    rows = layout_rows()
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert set(rows) == packages
    for package, names in rows.items():
        for name in names:
            if "/" in name.rstrip("/") and name.split("/")[0] in packages:
                path = PACKAGE / name
            else:
                path = PACKAGE / package / name
            assert path.exists(), f"docs/architecture.md names {package}/{name}, which is not there"
