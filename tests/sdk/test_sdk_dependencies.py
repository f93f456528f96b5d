"""The SDK is what competitors install: standard library only, no Django, no Docker SDK.

The one exception is the optional extra `armada[rl]` (gymnasium, pettingzoo, numpy): only
`armada.rl` imports them, and nothing else in the SDK imports `armada.rl`.
"""

import ast
import subprocess
import sys
from pathlib import Path

SDK = Path(__file__).resolve().parents[2] / "sdk" / "armada"
#: What the `rl` extra brings (sdk/pyproject.toml), for armada/rl/ only.
RL_EXTRA = {"gymnasium", "pettingzoo", "numpy"}
#: The imitation starter's bot folder (a plain folder `armada new` copies, never imported by the SDK): its bot
#: imports what the server's image has and its encoding.py, its train.py the `learn` extra.
STARTER_FILES = Path("starters") / "imitation" / "files"
STARTER_IMPORTS = {"numpy", "onnx", "onnxruntime", "torch", "encoding"}


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
        in_rl = path.relative_to(SDK).parts[0] == "rl"
        in_starter = path.relative_to(SDK).parent == STARTER_FILES
        extra = (_imported_top_modules(path) - allowed - optional - (RL_EXTRA if in_rl else set())
                 - (STARTER_IMPORTS if in_starter else set()))
        if extra:
            offenders[str(path.relative_to(SDK))] = sorted(extra)
    assert offenders == {}


def test_sdk_imports_without_django_docker_or_the_rl_extra():
    """With gymnasium, pettingzoo and numpy missing, every module but armada.rl's imports (none loads
    Django or Docker) and a game plays; `import armada.rl` names the extra to install."""
    code = (
        "import sys, importlib, pkgutil\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {sorted(RL_EXTRA)!r}:\n"
        "            raise ImportError(f'No module named {name!r} (blocked)')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import armada\n"
        "for mod in pkgutil.walk_packages(armada.__path__, 'armada.'):\n"
        "    if not mod.name.startswith('armada.rl'):\n"
        "        importlib.import_module(mod.name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'docker', 'celery', 'rest_framework')))\n"
        "from armada.starters.mothership import greedy, random\n"
        "print(armada.run('mothership', [greedy.Bot, random.Bot], seed=1).result.outcome)\n"
        "try:\n"
        "    import armada.rl\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(RL_EXTRA)!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "[]"
    assert lines[1] in ("destruction", "damage", "draw")
    # By the SDK's own address (pip records it): `armada` on PyPI is another project.
    assert lines[2].startswith('armada.rl needs the "rl" extra: pip install "armada[rl] @ ')
    assert lines[3] == "[]"


def test_playing_never_loads_the_rl_extra_even_when_installed():
    code = (
        "import sys, armada, armada.api, armada.bot, armada.cli.main\n"
        "from armada.starters.galaxy import greedy, random\n"
        "armada.run('galaxy', [greedy.Bot, random.Bot], seed=1, config={'max_turns': 2})\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(RL_EXTRA)!r} or m == 'armada.rl'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_bot_importing_armada_rl_on_the_server_is_told_what_the_server_has():
    """In the bot image (ARMADA_SANDBOX=docker) gymnasium is missing and there is no pip: the
    "pip install armada[rl]" line would send a competitor the wrong way. The import fails with the
    ModuleNotFoundError itself, which the referee follows with the list of what bots have."""
    from armada.botlog import crash_reason
    from armada.stack import missing_module_note

    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'gymnasium':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import armada.rl\n"
    )
    import os

    env = {**os.environ, "ARMADA_SANDBOX": "docker"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert crash_reason(done.stderr) == "ModuleNotFoundError: No module named 'gymnasium'", done.stderr
    assert "pip install" not in done.stderr
    assert missing_module_note(crash_reason(done.stderr)).startswith(
        "no module named 'gymnasium' on the server: it is what armada.rl (the SDK's rl extra) imports")
