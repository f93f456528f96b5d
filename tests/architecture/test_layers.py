"""The platform's shape (docs/architecture.md): the package root holds only the Django project's own
files and packages, apps import only downward, an app's pure part (`logic/`) imports no Django,
no function-local import dodges a cycle, no module cycle, and no code outside the game registry
compares game slugs.

The checks read the source with `ast` (nothing is imported), so they see every import, also those
behind a condition; each check is also run on a small made-up tree to show it catches a violation.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from armada_web.games import SPECS

PACKAGE = Path(__file__).resolve().parents[2] / "platform" / "armada_web"

#: The Django project's own modules: the only modules at the package's root.
PROJECT_FILES = {"__init__", "settings", "urls", "celery", "wsgi", "asgi"}
#: What the apps share, each a package below every app (lowest first).
SHARED = ["web", "storage", "games", "runtime", "jobs"]
#: Layers, lowest first: a module imports only from its own package or from lower layers.
LAYERS: list[set[str]] = [
    *({package} for package in SHARED),
    {"accounts"},
    {"teams"},
    {"bots"},
    {"matches"},
    {"ladder"},
    {"seasons", "events"},
    {"integrity"},
    {"api", "pages", "ops", "notifications"},
    {"devdata"},
    {"", "settings", "celery", "urls", "wsgi", "asgi"},
]
#: What an app's pure part (`APP/logic/`) may import besides the standard library and other pure parts.
PURE_ALLOWED = {"armada", "openskill"}


def layer_of(app: str) -> int:
    for number, apps in enumerate(LAYERS):
        if app in apps:
            return number
    raise AssertionError(f"app {app!r} has no layer: add it to LAYERS in {__file__} and docs/architecture.md")


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    target: str  # the imported armada_web module, dotted
    line: int
    local: bool  # inside a function or class body, not at the module's top level
    in_ready: bool  # inside an AppConfig.ready() method


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(path: Path, root: Path) -> list[Import]:
    """Every import of a module of the package `root` (armada_web) in the file at `path`."""
    module = module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = root.name
    found: list[Import] = []

    def visit(node: ast.AST, local: bool, in_ready: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, True, in_ready or child.name == "ready")
                continue
            if isinstance(child, ast.ClassDef):
                visit(child, True, in_ready)
                continue
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(child, module, path.name == "__init__.py")
                targets = [f"{base}.{alias.name}" if (root / Path(*base.split(".")[1:]) / f"{alias.name}.py").exists()
                           or (root / Path(*base.split(".")[1:]) / alias.name).is_dir() else base
                           for alias in child.names]
            for target in targets:
                if target == package or target.startswith(package + "."):
                    found.append(Import(module, target, child.lineno, local, in_ready))
            visit(child, local, in_ready)

    visit(tree, False, False)
    return found


def app_of(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else ""


def sources(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "migrations" not in p.parts)


def loose_modules(root: Path) -> list[str]:
    """Modules at the package's root that are not the Django project's own files."""
    return sorted(p.name for p in root.glob("*.py") if p.stem not in PROJECT_FILES)


def impure_logic(root: Path) -> list[str]:
    """Imports in an app's pure part (`*/logic/`) of anything but the standard library, PURE_ALLOWED
    and pure parts: no Django, no database, no broker."""
    problems = []
    for path in sources(root):
        if "logic" not in path.relative_to(root).parts[:-1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                pure_part = top == root.name and ".logic" in name
                if not (top in sys.stdlib_module_names or top in PURE_ALLOWED or pure_part or top == "__future__"):
                    problems.append(f"{path.relative_to(root)}:{node.lineno} imports {name} (a pure part imports no "
                                    "Django, database or other app code)")
    return problems


def upward_imports(root: Path) -> list[str]:
    """Imports that point up the layers, or sideways into another app of the same layer."""
    problems = []
    for path in sources(root):
        for imp in imports_of(path, root):
            mine, theirs = app_of(imp.module), app_of(imp.target)
            if mine == theirs:
                continue
            sideways = layer_of(theirs) == layer_of(mine) and layer_of(mine) != len(LAYERS) - 1  # (project files)
            if layer_of(theirs) > layer_of(mine) or sideways:
                problems.append(f"{imp.module}:{imp.line} imports {imp.target} ({theirs} is not below {mine})")
    return problems


def local_imports(root: Path) -> list[str]:
    """Imports of the package's own modules inside functions (outside AppConfig.ready())."""
    return [f"{imp.module}:{imp.line} imports {imp.target} inside a function"
            for path in sources(root) for imp in imports_of(path, root) if imp.local and not imp.in_ready]


def cycles(root: Path) -> list[list[str]]:
    """Cycles among the package's modules through their top-level imports."""
    graph: dict[str, set[str]] = {}
    for path in sources(root):
        for imp in imports_of(path, root):
            if not imp.local:
                graph.setdefault(imp.module, set()).add(imp.target)
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def walk(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            # A package's __init__ importing its own submodules is how a package exports names.
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                found.append([*trail[trail.index(nxt):], nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                walk(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            walk(start, [start])
    return found


def slug_comparisons(root: Path, slugs: set[str]) -> list[str]:
    """Comparisons with a game's slug (`game == "galaxy"`) outside the game registry (games/)."""
    problems = []
    for path in sources(root):
        if "games" in path.relative_to(root).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                values = [node.left, *node.comparators]
                if any(isinstance(v, ast.Constant) and v.value in slugs for v in values):
                    problems.append(f"{path.relative_to(root)}:{node.lineno} compares with a game slug")
    return problems


# -- the platform itself ------------------------------------------------------------------------


def test_the_root_holds_only_the_project_files_and_packages():
    assert loose_modules(PACKAGE) == [], "put a shared module in one of the packages " + ", ".join(SHARED)


def test_every_package_at_the_root_has_a_layer():
    for package in sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        layer_of(package)


def test_the_pure_parts_import_no_django():
    pure_parts = sorted(p.parent.name for p in PACKAGE.glob("*/logic"))
    assert pure_parts == ["bots", "events", "integrity", "ladder", "seasons", "teams", "web"]
    assert impure_logic(PACKAGE) == []


def test_every_import_points_down_the_layers():
    assert upward_imports(PACKAGE) == []


def test_no_function_local_import_of_the_platform_outside_ready():
    assert local_imports(PACKAGE) == []


def test_no_import_cycle_between_modules():
    assert cycles(PACKAGE) == []


def test_no_code_outside_the_registry_compares_game_slugs():
    assert slug_comparisons(PACKAGE, set(SPECS)) == []


def test_templates_compare_no_game_slug():
    for template in PACKAGE.rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        for slug in SPECS:
            assert f'== "{slug}"' not in text and f"== '{slug}'" not in text, template


# -- the checks catch what they are for ---------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "armada_web"
    for app in ("", "web", "bots", "matches", "ladder", "ladder/logic"):
        (root / app).mkdir(parents=True, exist_ok=True)
        (root / app / "__init__.py").write_text("")
    (root / "settings.py").write_text("")
    (root / "web" / "errors.py").write_text("class Invalid(Exception):\n    pass\n")
    (root / "ladder" / "logic" / "ratings.py").write_text("import math\n\nfrom armada.ratings import MU\n")
    (root / "bots" / "models.py").write_text("from armada_web.web.errors import Invalid\n")
    (root / "matches" / "models.py").write_text("from armada_web.bots.models import Invalid\n")
    return root


def test_the_checks_pass_a_downward_tree(tree):
    assert upward_imports(tree) == [] and local_imports(tree) == [] and cycles(tree) == []
    assert loose_modules(tree) == [] and impure_logic(tree) == []


def test_a_loose_module_at_the_root_is_caught(tree):
    (tree / "helpers.py").write_text("")
    assert loose_modules(tree) == ["helpers.py"]


def test_django_in_a_pure_part_is_caught(tree):
    (tree / "ladder" / "logic" / "pairs.py").write_text(
        "from django.db import models\nfrom armada_web.ladder.logic import ratings\n"
        "from armada_web.bots import models\n")
    assert impure_logic(tree) == [
        "ladder/logic/pairs.py:1 imports django.db (a pure part imports no Django, database or other app code)",
        "ladder/logic/pairs.py:3 imports armada_web.bots (a pure part imports no Django, database or other app code)"]


def test_an_upward_import_is_caught(tree):
    (tree / "bots" / "services.py").write_text("from armada_web.ladder import ratings\n")
    (tree / "ladder" / "ratings.py").write_text("")
    assert upward_imports(tree) == [
        "armada_web.bots.services:1 imports armada_web.ladder.ratings (ladder is not below bots)"]


def test_a_function_local_import_and_a_cycle_are_caught(tree):
    (tree / "matches" / "tasks.py").write_text("from armada_web.matches import services\n")
    (tree / "matches" / "services.py").write_text(
        "from armada_web.matches import tasks\n\ndef send():\n    from armada_web.bots import models\n")
    assert local_imports(tree) == ["armada_web.matches.services:4 imports armada_web.bots.models inside a function"]
    assert ["armada_web.matches.services", "armada_web.matches.tasks", "armada_web.matches.services"] in cycles(tree) \
        or ["armada_web.matches.tasks", "armada_web.matches.services", "armada_web.matches.tasks"] in cycles(tree)


def test_a_slug_comparison_is_caught(tree):
    (tree / "ladder" / "views.py").write_text('def f(game):\n    return game == "galaxy"\n')
    assert slug_comparisons(tree, {"galaxy"}) == ["ladder/views.py:2 compares with a game slug"]
