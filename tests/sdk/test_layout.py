"""The SDK's layout keeps one name per thing: the Galaxy bot library is a package, each CLI command
is a module of `armada.cli.commands` that imports no other command (what two share is a helper of
`armada.cli`), and one module writes the normalised zip, for the CLI and the site alike."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "armada"


def test_the_galaxy_bot_library_is_a_package():
    assert (SDK / "bot" / "galaxy" / "__init__.py").exists()
    assert sorted(p.name for p in (SDK / "bot").glob("galaxy*.py")) == []


def test_commands_import_no_other_command():
    found = []
    for path in sorted((SDK / "cli" / "commands").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("armada.cli.commands"):
                found.append(f"{path.name}:{node.lineno} imports {node.module}")
    assert found == []


def test_every_command_module_is_a_subcommand():
    from armada.cli.main import build_parser

    parser = build_parser()
    commands = {name for action in parser._subparsers._group_actions for name in action.choices}
    modules = {p.stem for p in (SDK / "cli" / "commands").glob("*.py") if p.stem != "__init__"}
    assert modules <= commands


def test_one_module_writes_zips():
    writers = []
    for folder in (SDK, ROOT / "platform" / "armada_web", ROOT / "sandbox" / "armada_sandbox"):
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in {"ZipInfo", "writestr"}):
                    writers.append(path.relative_to(ROOT).as_posix())
    assert set(writers) == {"sdk/armada/archive.py"}
