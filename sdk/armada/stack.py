"""The server's bot image: its Python and the versions of its ML stack (docs/bots-environment.md).

`SERVER` is what the bot image holds, the same for every bot of every match: Debian 12's
Python, numpy, PyTorch (CPU), scikit-learn and onnxruntime (CPU). It is generated from the
image (`python -m armada_sandbox stack --write` asks the built image and rewrites the block
below) and `tests/sandbox/test_stack.py` checks that the image's actual versions equal it, so
`armada env` and `armada play` tell a competitor the truth without asking the site.

`local_versions()` is the same list for the Python that runs `armada` (a local bot runs with
it), and `differences()` names what a bot importing those modules would find otherwise.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import itertools
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# -- generated from the bot image by `python -m armada_sandbox stack --write`: do not edit --
SERVER: dict[str, str] = {
    "python": "3.11.2",
    "numpy": "1.24.2",
    "torch": "1.13.1",
    "scikit-learn": "1.2.1",
    "onnxruntime": "1.32.0",
}
# -- end of the generated block --


@dataclass(frozen=True)
class Library:
    """One library of the stack: its distribution's name (versions), its import name, and the
    Debian package it comes from in the image ("" for a wheel)."""

    name: str
    module: str
    debian: str = ""


#: The libraries of the bot image beyond the standard library and `armada`, in SERVER's order.
LIBRARIES = (Library("numpy", "numpy", "python3-numpy"), Library("torch", "torch", "python3-torch"),
             Library("scikit-learn", "sklearn", "python3-sklearn"), Library("onnxruntime", "onnxruntime"))
#: The import names the image has on top of the standard library (what a failed import lists).
AVAILABLE = ("armada", *(lib.module for lib in LIBRARIES))
#: A bot's files looked at by `imported_modules` (a bigger bot: the first ones found).
MAX_SCANNED_FILES = 200
MAX_SCANNED_BYTES = 1 << 20


def _parsed(path: Path) -> ast.AST | None:
    """A Python file's syntax tree; None when it is past MAX_SCANNED_BYTES, unreadable or not Python."""
    try:
        if path.stat().st_size > MAX_SCANNED_BYTES:
            return None
        return ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def python_version() -> str:
    """This interpreter's version, e.g. "3.11.7"."""
    return platform.python_version()


def local_versions() -> dict[str, str | None]:
    """SERVER's keys with this interpreter's versions (None: not installed here); nothing is imported."""
    found: dict[str, str | None] = {"python": python_version()}
    for lib in LIBRARIES:
        try:
            found[lib.name] = importlib.metadata.version(lib.name)
        except importlib.metadata.PackageNotFoundError:
            found[lib.name] = None
    return found


def debian_version(package: str) -> str | None:
    """The upstream version of an installed Debian package ("1:1.24.2-1+deb12u1" is 1.24.2), else None."""
    if not shutil.which("dpkg-query"):
        return None
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout:
        return None
    return re.split(r"[-+~]", done.stdout.split(":", 1)[-1])[0]


def installed_versions() -> dict[str, str | None]:
    """SERVER's keys as this machine has them, a Debian package's own version first: what
    `python3 -m armada.stack` prints inside the image (Debian's PyTorch 1.13.1 calls itself
    1.13.0a0 in `torch.__version__`; its package's version is the release it is)."""
    found = local_versions()
    for lib in LIBRARIES:
        packaged = debian_version(lib.debian) if lib.debian else None
        if packaged is not None:
            found[lib.name] = packaged
    return found


def same_release(here: str | None, server: str) -> bool:
    """Do two versions of a library name the same release, up to a local label ("1.13.1+cpu" is 1.13.1)?"""
    return here is not None and here.split("+")[0] == server.split("+")[0]


def imported_modules(code_dir: str | os.PathLike[str]) -> set[str]:
    """The top-level modules the bot's Python files import (read, never run); unreadable files are skipped."""
    return set(importing_files(code_dir))


def importing_files(code_dir: str | os.PathLike[str]) -> dict[str, str]:
    """Each top-level module the bot's Python files import, with the first file that imports it
    (main.py first, then by path relative to the folder): read, never run; unreadable files are skipped. Given a `.py`
    file (a single-file bot), the files it runs: itself and the modules of its folder it imports,
    transitively (`running_files`), not the folder's other files."""
    found: dict[str, str] = {}
    root = Path(code_dir)
    if root.is_file():
        files, root = running_files(root), root.parent
    else:
        entry = root / "main.py"  # what the bot runs first names a module first, however many files follow
        others = (p for p in root.rglob("*.py") if p.is_file() and p != entry)
        rest = sorted(itertools.islice(others, MAX_SCANNED_FILES))
        files = [entry, *rest] if entry.is_file() else rest
    for path in files:
        tree = _parsed(path)
        if tree is None:
            continue
        names: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names += [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.append(node.module.split(".")[0])
        for name in names:
            found.setdefault(name, path.relative_to(root).as_posix())
    return found


def differences(modules: set[str] | dict[str, str], local: dict[str, str | None] | None = None) -> list[str]:
    """One line per library of the stack in `modules` whose version here is not the server's; with
    the file that imports it when `modules` maps each module to one (`importing_files`)."""
    here = local_versions() if local is None else local
    lines = []
    for lib in LIBRARIES:
        if lib.module not in modules:
            continue
        who = f"your bot's {modules[lib.module]}" if isinstance(modules, dict) else "your bot"
        mine, server = here.get(lib.name), SERVER[lib.name]
        if mine is None:
            lines.append(f"{who} imports {lib.module}, which this Python does not have "
                         f"(the server has {lib.name} {server})")
        elif not same_release(mine, server):
            lines.append(f"{who} imports {lib.module}: {lib.name} {mine} here, {server} on the server")
    return lines


def python_difference(local: str | None = None) -> str | None:
    """A line when this Python's major.minor is not the server's, else None."""
    mine, server = local or python_version(), SERVER["python"]
    if mine.split(".")[:2] == server.split(".")[:2]:
        return None
    return f"your bot runs with Python {mine} here, {server} on the server"


def parity_notes(code_dirs: list[str | os.PathLike[str]], local: dict[str, str | None] | None = None) -> list[str]:
    """What `armada play` says once about bots run as local processes: each library of the stack
    import at a version other than the server's, and Python itself (each line once). Each of
    `code_dirs` is a bot's folder, or the `.py` file of a single-file bot (`importing_files`)."""
    modules: dict[str, str] = {}
    for folder in code_dirs:
        for module, file in importing_files(folder).items():
            modules.setdefault(module, file)
    here = local_versions() if local is None else local
    lines = differences(modules, here)
    python = python_difference(here["python"]) if code_dirs else None
    return ([python] if python else []) + lines


#: Modules the image has beside the standard library and AVAILABLE, so a bot's import of them
#: works there: the Debian packages the stack depends on (infra/images/bot/Dockerfile installs
#: python3-torch, python3-sklearn, python3-packaging with their dependencies; `apt-cache depends
#: --recurse`): scikit-learn's SciPy, joblib (which loads its pickled models) and threadpoolctl,
#: PyTorch's PyYAML, typing_extensions, SymPy, psutil and the rest. Not promised to bots (the docs
#: name only the stack), but not worth a "the server does not have it" note either.
IMAGE_EXTRAS = ("scipy", "joblib", "threadpoolctl", "packaging", "typing_extensions", "yaml", "sympy", "mpmath",
                "psutil", "six", "decorator", "dateutil", "requests", "urllib3", "idna", "certifi", "chardet",
                "charset_normalizer", "attr", "future", "past", "hypothesis", "sortedcontainers", "astunparse",
                "pkg_resources", "gast", "beniget", "ply")
#: The server's standard library (3.11) beyond a newer Python's, which dropped these (PEP 594, 3.12's
#: removals): a bot run here by 3.12 or later may import them and find them on the server.
STDLIB_311_ONLY = ("aifc", "asynchat", "asyncore", "audioop", "cgi", "cgitb", "chunk", "crypt", "distutils",
                   "imghdr", "imp", "lib2to3", "mailcap", "msilib", "nis", "nntplib", "ossaudiodev", "pipes",
                   "smtpd", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib")
#: Parts of the SDK that need an extra the image does not have, with the module they need.
NEEDS_EXTRA = {"armada.rl": "gymnasium"}
#: What the rl extra adds that the bot image lacks: a bot missing one most likely imported armada.rl.
RL_EXTRA_MODULES = ("gymnasium", "pettingzoo")
#: The exceptions an import guarded by `try` may be caught by (a bot that does without the module).
_GUARDS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _guarded(handlers: list[ast.ExceptHandler]) -> bool:
    """Does one of these `except` clauses catch a failed import?"""
    for handler in handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(kind is None or (isinstance(kind, ast.Name) and kind.id in _GUARDS) for kind in kinds):
            return True
    return False


def _type_checking(test: ast.expr) -> bool:
    """Is this `if` test `TYPE_CHECKING` (or `typing.TYPE_CHECKING`), whose body never runs?"""
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    """The imports of a module that run, as (level, dotted name; level > 0: relative to the
    module's package, the name may be empty), outside `try` blocks that catch ImportError and
    `if TYPE_CHECKING:` blocks."""
    names: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            names.extend((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names.append((node.level, module))
            # `from armada import rl`, `from . import helper`: the names may be modules too
            names.extend((node.level, f"{module}.{alias.name}" if module else alias.name) for alias in node.names)
        if isinstance(node, ast.Try) and _guarded(node.handlers):
            for child in (*node.handlers, *node.orelse, *node.finalbody):
                visit(child)
            return
        if isinstance(node, ast.If) and _type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def _own_files(base: Path, parts: list[str]) -> list[Path]:
    """The files of the bot that importing `parts` (dotted, from folder `base`) runs: each
    package's `__init__.py` on the way and the module itself, not the rest of its package."""
    files: list[Path] = []
    folder = base
    if not parts and (folder / "__init__.py").is_file():
        files.append(folder / "__init__.py")
    for part in parts:
        if (folder / f"{part}.py").is_file():
            files.append(folder / f"{part}.py")
            break
        folder = folder / part
        if not folder.is_dir():
            break
        if (folder / "__init__.py").is_file():
            files.append(folder / "__init__.py")
    return files


def _walk(script: Path) -> Iterator[tuple[Path, str | None]]:
    """The files the entry `script` runs (itself, then the modules of its folder it imports,
    transitively; at most MAX_SCANNED_FILES): each readable one with None as it is reached, then
    with every import of it that is not of the folder's own modules, dotted: read, never run.
    Guarded imports are left out (`_imports`)."""
    root = script.parent
    todo: list[Path] = [script]
    seen: set[Path] = set()
    while todo and len(seen) < MAX_SCANNED_FILES:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        tree = _parsed(path)
        if tree is None:
            continue
        yield path, None
        for level, dotted in _imports(tree):
            parts = [part for part in dotted.split(".") if part]
            if level:  # the bot's own package: follow it
                base = path.parent
                for _ in range(level - 1):
                    base = base.parent
                todo.extend(f for f in _own_files(base, parts) if f.is_relative_to(root))
            elif (root / f"{parts[0]}.py").is_file() or (root / parts[0]).is_dir():
                todo.extend(_own_files(root, parts))
            else:
                yield path, dotted


def server_has(module: str) -> bool:
    """Whether the bot image provides top-level module `module` (the standard library, armada and
    the image's libraries): a file of that name beside a bot shadows it when run there."""
    return module in {*sys.stdlib_module_names, *STDLIB_311_ONLY, *AVAILABLE, *IMAGE_EXTRAS}


def running_files(script: str | os.PathLike[str]) -> list[Path]:
    """The Python files a bot whose entry is `script` runs: the entry and the modules of its folder
    it imports, transitively (read, never run; unreadable ones left out), the entry first."""
    return [path for path, dotted in _walk(Path(script)) if dotted is None]


def missing_imports(script: str | os.PathLike[str]) -> dict[str, str]:
    """The imports of a bot (its entry `script` and the modules of its folder that it imports,
    transitively) that the bot image cannot satisfy, each with the first file importing it
    (relative to the folder): read, never run. What the folder holds, the standard library and the
    image's libraries are not in it; an import guarded by `try ... except ImportError` or under
    `if TYPE_CHECKING:` is not either."""
    root = Path(script).parent
    found: dict[str, str] = {}
    for path, dotted in _walk(Path(script)):
        if dotted is None:
            continue
        top = dotted.split(".")[0]
        if not server_has(top):
            found.setdefault(top, path.relative_to(root).as_posix())
            continue
        extra = next((name for name in NEEDS_EXTRA if dotted == name or dotted.startswith(name + ".")), None)
        if extra is not None:
            found.setdefault(extra, path.relative_to(root).as_posix())
    return found


def unavailable_notes(script: str | os.PathLike[str]) -> list[str]:
    """What `armada play` says once about a local bot's imports that the server cannot satisfy
    (`missing_imports`): the import runs here and fails there."""
    libraries = ", ".join(lib.module for lib in LIBRARIES)
    lines = []
    for module, file in missing_imports(script).items():
        if module in NEEDS_EXTRA:
            lines.append(f"your bot's {file} imports {module}, which needs {NEEDS_EXTRA[module]}: the server has "
                         f"no {NEEDS_EXTRA[module]}, so the import fails there (copy the code the bot needs "
                         "into its folder, as the imitation starter's encoding.py does)")
        elif not _installed_here(module):  # most likely a file of its own, left out of its folder
            lines.append(f"your bot's {file} imports {module}, which is not in its folder, not installed here and "
                         f"not on the server: the import fails; a module of your own goes beside main.py "
                         f"({module}.py), the folder being what is played and uploaded")
        else:
            lines.append(f"your bot's {file} imports {module}, which the server does not have (bots have "
                         f"Python's standard library, armada, {libraries}, nothing else): the import fails there")
    return lines


def _installed_here(module: str) -> bool:
    """Can this Python import top-level `module` (found, never imported)?"""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


#: The last line of a traceback of an import that found nothing (`crash_reason`'s form).
_MISSING = "ModuleNotFoundError: No module named "


def missing_module_note(reason: str, *, public: bool = False) -> str:
    """For a bot that crashed on `reason` (the last line of its traceback) because an import found
    nothing: what the server's Python has instead; else "". `public`: for the seat's detail, which
    anyone sees on the match's page, the module's name (the bot's own words, from its private
    log) is left out unless it is one of the server's libraries or the rl extra's."""
    if not reason.startswith(_MISSING):
        return ""
    name = reason[len(_MISSING):].strip().strip("'\"")
    server = next((lib for lib in LIBRARIES if name == lib.module), None)
    if server is not None:  # the server has it: only this Python (`armada play`) lacks it
        return (f"no module named {name!r} in this Python, but the server has {server.name} "
                f"{SERVER[server.name]}: install that version here to play the bot locally (`armada env`)")
    have = ", ".join(f"{lib.module} {SERVER[lib.name]}" for lib in LIBRARIES)
    own = name.split(".")[0]
    if own in IMAGE_EXTRAS:  # a dependency of the server's libraries: there, not here
        return (f"no module named {name!r} in this Python, but the server's image has {own} (a dependency of its "
                f"libraries, not one the docs promise): install it here to play the bot locally")
    if own in RL_EXTRA_MODULES:  # most likely armada.rl's own import: a bot cannot use armada.rl on the server
        return (f"no module named {own if public else name!r} on the server: it is what armada.rl (the SDK's rl "
                f"extra) imports, and bots have Python {SERVER['python']}'s standard library, armada without its "
                f"extras and {have}; copy the code the bot needs into its folder, as the imitation starter's "
                "encoding.py does (docs: bots-environment)")
    if public:
        return (f"an import found no such module in the bot's files or on the server (its log names it): bots "
                f"have Python {SERVER['python']}'s standard library, armada and {have}, nothing else (`armada env`; "
                "docs: bots-environment); a module of your own goes beside main.py")
    return (f"no module named {name!r} in the bot's files or on the server: bots have Python {SERVER['python']}'s "
            f"standard library, armada and {have}, nothing else (`armada env`; docs: bots-environment); "
            f"a module of your own goes beside main.py ({own}.py)")


if __name__ == "__main__":  # inside the bot image: its versions, as SERVER holds them
    json.dump(installed_versions(), sys.stdout)
    print()
