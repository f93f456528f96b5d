"""The sandbox's front door (issue 15): its modules import each other without a cycle and
without function-local imports, and the platform, the benches and the SDK use only the names
`armada_sandbox` exports."""

from __future__ import annotations

import ast
from pathlib import Path

import armada_sandbox

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sandbox" / "armada_sandbox"
#: Function-local imports the package keeps on purpose, by module: each an optional dependency.
OPTIONAL_IMPORTS = {
    "_image": {"docker", "docker.errors"},  # build.sh runs _image.py as a script with any python3 (no Docker SDK)
}


def modules() -> dict[str, ast.Module]:
    """Every module of the package by its name ("__init__", "docker_bot", "_engine", ...)."""
    return {path.stem: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in PACKAGE.glob("*.py")}


def imported(node: ast.Import | ast.ImportFrom, package: set[str]) -> list[str]:
    """What an import statement loads: a package module's name ("__init__" for the package
    itself), or "ext:NAME" for any other module."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        module = ("armada_sandbox" + (f".{node.module}" if node.module else "")) if node.level else (node.module or "")
        if module == "armada_sandbox":  # `from armada_sandbox import x`: a submodule, or a name of __init__
            names = [f"{module}.{alias.name}" if alias.name in package else module for alias in node.names]
        else:
            names = [module]
    found = []
    for name in names:
        if name == "armada_sandbox":
            found.append("__init__")
        elif name.startswith("armada_sandbox."):
            found.append(name.split(".")[1])
        else:
            found.append(f"ext:{name}")
    return found


def imports_by_place(tree: ast.Module, package: set[str]) -> tuple[set[str], list[tuple[int, str]]]:
    """(what the module imports at its top level, [(line, what) imported inside a function or class])."""
    top: set[str] = set()
    local: list[tuple[int, str]] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                for name in imported(child, package):
                    if nested:
                        local.append((child.lineno, name))
                    else:
                        top.add(name)
            visit(child, nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef))

    visit(tree, False)
    return top, local


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph` (module -> the package modules it imports), or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := walk(nxt)):
                return found
        state[node] = "done"
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := walk(start)):
            return found
    return None


def test_the_cycle_finder_finds_cycles():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_package_modules_import_each_other_without_a_cycle_or_a_local_import():
    trees = modules()
    package = set(trees)
    graph: dict[str, set[str]] = {}
    local: dict[str, list[tuple[int, str]]] = {}
    for name, tree in trees.items():
        top, nested = imports_by_place(tree, package)
        graph[name] = {target for target in top if not target.startswith("ext:")}
        allowed = OPTIONAL_IMPORTS.get(name, set())
        bad = [(line, what) for line, what in nested if not what.startswith("ext:") or what[4:] not in allowed]
        if bad:
            local[name] = bad
    assert local == {}, f"function-local imports (of a sibling module, or not a listed optional dependency): {local}"
    assert cycle(graph) is None, f"import cycle between the sandbox's modules: {' -> '.join(cycle(graph) or [])}"
    assert not any("__init__" in targets for name, targets in graph.items() if name not in ("__init__", "__main__")), \
        "a module of the package imports the package itself (its public names come from the modules)"
    assert not any("__main__" in targets for targets in graph.values()), "the commands' module is nobody's import"
    assert graph["__init__"] >= {"docker_bot", "warm", "sweeper", "_engine"}  # the test sees real edges


def test_the_graph_check_sees_a_function_local_sibling_import():
    tree = ast.parse("import os\n\ndef f():\n    from armada_sandbox._engine import docker_client\n")
    assert imports_by_place(tree, {"_engine"}) == ({"ext:os"}, [(4, "_engine")])


def test_every_exported_name_exists_and_the_plumbing_is_private():
    assert sorted(armada_sandbox.__all__) == armada_sandbox.__all__
    for name in armada_sandbox.__all__:
        assert getattr(armada_sandbox, name, None) is not None, name
    public_modules = {path.stem for path in PACKAGE.glob("*.py") if not path.stem.startswith("_")}
    assert public_modules == {"docker_bot", "folders", "limits", "slots", "sweeper", "warm"}
    assert {"_engine", "_containers", "_seccomp", "_fifo", "_image"} <= {path.stem for path in PACKAGE.glob("_*.py")}


def outside_uses(path: Path) -> list[str]:
    """What a file outside the package takes of it that is not an exported name (empty: all fine)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    wrong = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wrong += [f"import {a.name}" for a in node.names if a.name.startswith("armada_sandbox.")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("armada_sandbox"):
            if node.module != "armada_sandbox":
                wrong.append(f"from {node.module} import ...")
            else:
                wrong += [f"from armada_sandbox import {a.name}" for a in node.names
                          if a.name not in armada_sandbox.__all__]
    return wrong


def test_platform_benches_and_sdk_use_only_the_exported_names():
    offenders = {}
    files = [path for folder in ("platform", "bench", "sdk") for path in (ROOT / folder).rglob("*.py")]
    for path in files:
        if wrong := outside_uses(path):
            offenders[str(path.relative_to(ROOT))] = wrong
    assert offenders == {}
    users = [path for path in files if "armada_sandbox" in path.read_text(encoding="utf-8")]
    assert len(users) >= 5  # the runner, ops, celery, the benches, the CLI: the test reads real files


def test_the_front_door_check_sees_a_private_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from armada_sandbox import DockerBot, docker_client\nfrom armada_sandbox._engine import x\n"
                      "import armada_sandbox.warm\n")
    assert outside_uses(sample) == ["from armada_sandbox import docker_client",
                                    "from armada_sandbox._engine import ...", "import armada_sandbox.warm"]
