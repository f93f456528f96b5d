"""The SDK is what competitors install: standard library only, no Django, no Docker SDK."""

import ast
import subprocess
import sys
from pathlib import Path

SDK = Path(__file__).resolve().parents[2] / "sdk" / "armada"


def _imported_top_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_sdk_imports_only_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"armada", "__future__"}
    # `--sandbox docker` loads the optional sandbox package lazily, inside a function.
    optional = {"armada_sandbox"}
    offenders = {}
    for path in SDK.rglob("*.py"):
        extra = _imported_top_modules(path) - allowed - optional
        if extra:
            offenders[str(path.relative_to(SDK))] = sorted(extra)
    assert offenders == {}


def test_sdk_imports_without_django_or_docker():
    code = (
        "import sys, importlib, pkgutil, armada\n"
        "for mod in pkgutil.walk_packages(armada.__path__, 'armada.'):\n"
        "    importlib.import_module(mod.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'docker', 'celery', 'rest_framework'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
