"""The server's ML stack as the SDK knows it (armada/stack.py): `armada env`, the parity note of
`armada play`, and what a bot importing a module the image lacks is told. (The image against
these versions: tests/sandbox/test_stack.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada import stack
from armada.botlog import crash_reason
from armada.cli.main import main
from armada.referee.environment import THREAD_VARIABLES, bot_environment
from armada.referee.match import play_match
from armada.referee.process_bot import ProcessBot
from tests.sdk.cli.bots import IDLE_GALAXY, write_bot

SERVER = dict(stack.SERVER)
SAME = {**SERVER}
OTHER = {**SERVER, "python": "3.13.1", "torch": "2.5.1", "onnxruntime": None}


def test_the_server_list_names_python_and_each_library() -> None:
    assert list(stack.SERVER) == ["python", *(lib.name for lib in stack.LIBRARIES)]
    assert {lib.module for lib in stack.LIBRARIES} == {"numpy", "torch", "sklearn", "onnxruntime"}
    assert stack.AVAILABLE == ("armada", "numpy", "torch", "sklearn", "onnxruntime")


def test_imports_are_read_from_the_source_never_run(tmp_path: Path) -> None:
    write_bot(tmp_path, "import torch.nn as nn\nfrom sklearn.linear_model import Ridge\nfrom . import x\n"
                        "raise SystemExit('never run')\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "model.py").write_text("import onnxruntime, json\n")
    (tmp_path / "broken.py").write_text("def (:\n")  # skipped, not fatal
    assert stack.imported_modules(tmp_path) == {"torch", "sklearn", "onnxruntime", "json"}


def test_a_note_names_the_file_that_imports_the_library(tmp_path: Path) -> None:
    """A training script beside the bot (the imitation starter's train.py) is named as what imports
    PyTorch, so nobody takes the bot itself for a PyTorch bot."""
    bot = write_bot(tmp_path / "learner", "import onnxruntime\n")
    (bot / "train.py").write_text("import torch\nimport onnxruntime\n")
    assert stack.importing_files(bot) == {"onnxruntime": "main.py", "torch": "train.py"}
    (bot / "encoding.py").write_text("import numpy\n")  # before main.py by name (a competitor's trial)
    (bot / "main.py").write_text("import numpy\nimport onnxruntime\n")
    assert stack.importing_files(bot)["numpy"] == "main.py"  # what the bot runs first
    notes = stack.parity_notes([bot], {**SAME, "torch": "2.13.0"})
    assert notes == [f"your bot's train.py imports torch: torch 2.13.0 here, {SERVER['torch']} on the server"]


def test_differences_name_each_library_the_bot_imports_at_another_version() -> None:
    lines = stack.differences({"torch", "onnxruntime", "sklearn", "json"}, OTHER)
    assert lines == [f"your bot imports torch: torch 2.5.1 here, {SERVER['torch']} on the server",
                     f"your bot imports onnxruntime, which this Python does not have "
                     f"(the server has onnxruntime {SERVER['onnxruntime']})"]
    assert stack.differences({"torch", "sklearn"}, SAME) == []
    assert stack.same_release(SERVER["torch"] + "+cpu", SERVER["torch"])  # a local label is the same release


def test_parity_notes_say_each_thing_once_for_both_bots(tmp_path: Path) -> None:
    one = write_bot(tmp_path / "one", "import torch\n")
    two = write_bot(tmp_path / "two", "import torch, numpy\n")
    notes = stack.parity_notes([one, two], OTHER)
    assert notes == [f"your bot runs with Python 3.13.1 here, {SERVER['python']} on the server",
                     f"your bot's main.py imports torch: torch 2.5.1 here, {SERVER['torch']} on the server"]
    assert stack.parity_notes([one], {**SAME, "python": SERVER["python"].rsplit(".", 1)[0] + ".99"}) == []
    assert stack.parity_notes([], OTHER) == []


def test_armada_env_prints_the_servers_versions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["env", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["server"] == SERVER
    assert set(data["local"]) == set(SERVER)
    assert main(["env"]) == 0
    text = capsys.readouterr().out
    for name, version in SERVER.items():
        assert any(line.split()[:2] == [name, version] for line in text.splitlines())
    assert "OMP_NUM_THREADS" in text


def test_play_notes_a_local_library_version_once(tmp_path: Path, capsys, monkeypatch) -> None:
    # The bot's import never runs: the note comes from reading its source.
    bot = write_bot(tmp_path / "ml", IDLE_GALAXY + "\nif False:\n    import torch\n")
    monkeypatch.setattr(stack, "local_versions", lambda: dict(OTHER))
    assert main(["play", str(bot), str(bot), "--seed", "1", "--config", '{"max_turns": 2}', "--json"]) == 0
    err = capsys.readouterr().err
    note = f"armada: note: your bot's main.py imports torch: torch 2.5.1 here, {SERVER['torch']} on the server"
    assert err.count(note) == 1
    assert err.count("Python 3.13.1 here") == 1


def test_a_single_file_bot_is_noted_for_what_it_runs_not_its_neighbours(tmp_path: Path, capsys, monkeypatch) -> None:
    """`armada play mybot.py` in a folder of other scripts: the notes are about mybot.py and the
    modules of its folder it imports, not about a sibling it never runs (the whole folder was read)."""
    (tmp_path / "mybot.py").write_text("import helper\n" + IDLE_GALAXY)
    (tmp_path / "helper.py").write_text("def load():\n    import onnxruntime\n")
    (tmp_path / "notebook.py").write_text("import torch\n")
    assert stack.importing_files(tmp_path / "mybot.py").keys() >= {"helper", "onnxruntime"}
    assert "torch" not in stack.importing_files(tmp_path / "mybot.py")
    assert stack.importing_files(tmp_path)["torch"] == "notebook.py"  # a folder bot: all of it
    monkeypatch.setattr(stack, "local_versions", lambda: dict(OTHER))
    assert main(["play", str(tmp_path / "mybot.py"), "builtin:random", "--seed", "1", "--config",
                 '{"max_turns": 2}', "--json"]) == 0
    err = capsys.readouterr().err
    assert "your bot's helper.py imports onnxruntime, which this Python does not have" in err
    assert "torch" not in err


def test_a_missing_module_gets_its_traceback_and_the_list_of_what_there_is(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "tf", "import tensorflow_not_here\n")
    idle = write_bot(tmp_path / "idle", IDLE_GALAXY)
    bots = {1: ProcessBot.for_script(bot / "main.py"), 2: ProcessBot.for_script(idle / "main.py")}
    outcome = play_match("galaxy", bots, seed=1, config={"max_turns": 2})
    mine = outcome.players[0]
    assert mine.status == "crashed"
    assert "ModuleNotFoundError: No module named 'tensorflow_not_here'" in mine.log  # the usual traceback
    listed = f"armada and numpy {SERVER['numpy']}, torch {SERVER['torch']}, sklearn {SERVER['scikit-learn']}"
    assert listed in mine.log.splitlines()[-1] and mine.log.splitlines()[-1].startswith("[armada] ")
    assert "no module named 'tensorflow_not_here' in the bot's files or on the server" in mine.log
    assert mine.log.rstrip().endswith("a module of your own goes beside main.py (tensorflow_not_here.py)")
    # The detail is public (the match's page): what there is, but not the name, which is the bot's own
    # words from its private log (a security review: a bot printed a fake last line to show its text)
    assert "an import found no such module in the bot's files or on the server (its log names it)" in mine.detail
    assert listed in mine.detail and "tensorflow_not_here" not in mine.detail
    assert stack.missing_module_note("ZeroDivisionError: division by zero") == ""
    rl = stack.missing_module_note("ModuleNotFoundError: No module named 'gymnasium'")  # armada.rl in a bot
    assert rl.startswith("no module named 'gymnasium' on the server: it is what armada.rl (the SDK's rl extra) imports")
    assert "as the imitation starter's encoding.py does" in rl and "gymnasium.py" not in rl
    # a dependency of the server's libraries (SciPy, sklearn's): the server has it (a trial was told it had not)
    for public in (False, True):
        scipy = stack.missing_module_note("ModuleNotFoundError: No module named 'scipy.optimize'", public=public)
        assert scipy.startswith("no module named 'scipy.optimize' in this Python, but the server's image has scipy")


def test_a_library_the_server_has_but_this_python_lacks_is_not_said_missing_on_the_server(tmp_path: Path) -> None:
    """`armada play` of a bot importing numpy from a Python without it (the SDK's own venv): the
    server has numpy, so the note says to install it here, and the crash's reason stays the
    traceback's last line, not the referee's note appended after it."""
    bot = write_bot(tmp_path / "np", "raise ModuleNotFoundError(\"No module named 'numpy'\")\n")
    idle = write_bot(tmp_path / "idle", IDLE_GALAXY)
    bots = {1: ProcessBot.for_script(bot / "main.py"), 2: ProcessBot.for_script(idle / "main.py")}
    mine = play_match("galaxy", bots, seed=1, config={"max_turns": 2}).players[0]
    assert mine.status == "crashed"
    assert "on the server: bots have" not in mine.detail
    assert f"no module named 'numpy' in this Python, but the server has numpy {SERVER['numpy']}" in mine.detail
    assert crash_reason(mine.log) == "ModuleNotFoundError: No module named 'numpy'"


def test_the_crash_reason_of_a_module_the_server_lacks_is_the_traceback_not_the_note(tmp_path: Path) -> None:
    bot = write_bot(tmp_path / "tf", "import tensorflow_not_here\n")
    idle = write_bot(tmp_path / "idle", IDLE_GALAXY)
    bots = {1: ProcessBot.for_script(bot / "main.py"), 2: ProcessBot.for_script(idle / "main.py")}
    mine = play_match("galaxy", bots, seed=1, config={"max_turns": 2}).players[0]
    assert mine.log.splitlines()[-1].startswith("[armada] no module named")
    assert crash_reason(mine.log) == "ModuleNotFoundError: No module named 'tensorflow_not_here'"


def test_every_bot_gets_its_thread_count_in_the_numeric_libraries_variables() -> None:
    env = bot_environment(sandbox="docker", workdir="/bot", home="/tmp", threads=3)
    assert {name: env[name] for name in THREAD_VARIABLES} == {
        "OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "3", "OPENBLAS_NUM_THREADS": "3"}
    local = bot_environment(sandbox="process", workdir="/x", home="/y")
    assert all(local[name] == "1" for name in THREAD_VARIABLES)  # the server's share, locally too


def test_play_notes_an_import_the_server_does_not_have(tmp_path: Path) -> None:
    """A bot that imports what this Python has but the bot image lacks (gymnasium, armada.rl, which
    needs it) plays locally and crashes on the server: `armada play` says so before the match. The
    bot's own modules, the standard library, the stack, guarded imports and files main.py never
    imports (a train.py) are not noted."""
    bot = write_bot(tmp_path / "rl", "import json, numpy\nimport helper\nfrom pkg import sub\n"
                                     "try:\n    import yaml_maybe\nexcept ImportError:\n    yaml_maybe = None\n")
    (bot / "helper.py").write_text("import gymnasium.spaces\nfrom armada.bot import BaseBot\n")
    (bot / "pkg").mkdir()
    (bot / "pkg" / "sub.py").write_text("from armada.rl import galaxy_encoding\nfrom . import other\n")
    (bot / "train.py").write_text("import onnx\nimport torch\n")
    assert stack.missing_imports(bot / "main.py") == {"gymnasium": "helper.py", "armada.rl": "pkg/sub.py"}
    notes = stack.unavailable_notes(bot / "main.py")
    assert notes[0].startswith("your bot's helper.py imports gymnasium, which the server does not have "
                               "(bots have Python's standard library, armada, numpy, torch, sklearn, onnxruntime")
    assert notes[1].startswith("your bot's pkg/sub.py imports armada.rl, which needs gymnasium: the server")
    # a module installed nowhere: most likely a file of the bot's own, left out of its folder (a trial)
    forgot = stack.unavailable_notes(write_bot(tmp_path / "forgot", "import encoding_left_out\n") / "main.py")
    assert forgot == ["your bot's main.py imports encoding_left_out, which is not in its folder, not installed here "
                      "and not on the server: the import fails; a module of your own goes beside main.py "
                      "(encoding_left_out.py), the folder being what is played and uploaded"]
    assert stack.missing_imports(write_bot(tmp_path / "plain", "import sys, armada.bot\n") / "main.py") == {}
    assert stack.missing_imports(write_bot(tmp_path / "from", "from armada import rl\n") / "main.py") == {
        "armada.rl": "main.py"}


def test_play_notes_the_missing_import_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = write_bot(tmp_path / "gym", IDLE_GALAXY + "\ndef unused():\n    import gymnasium\n")
    assert main(["play", str(bot), str(bot), "--seed", "1", "--config", '{"max_turns": 2}', "--json"]) == 0
    err = capsys.readouterr().err
    assert err.count("armada: note: your bot's main.py imports gymnasium, which the server does not have") == 1


def test_no_false_alarm_for_what_the_image_has_or_a_bot_never_runs(tmp_path: Path) -> None:
    """A wrong "the server does not have X" misleads: joblib (how scikit-learn models load,
    bots-environment.md) and the stack's own dependencies (Debian's: PyYAML, typing_extensions,
    dateutil, psutil, SymPy for PyTorch) are in the image; an import under
    `if TYPE_CHECKING:` never runs; and of a package of the bot's folder only the modules it
    imports count (a training module inside it is not the bot), relative imports included."""
    bot = write_bot(tmp_path / "pkg", "from __future__ import annotations\nimport typing\n"
                                      "from typing import TYPE_CHECKING\n"
                                      "import joblib, threadpoolctl, packaging.version\n"
                                      "import yaml, typing_extensions, dateutil.parser, psutil, sympy\n"
                                      "import scipy.special\nimport mypkg.model\n"
                                      "if TYPE_CHECKING:\n    import pandas\nelse:\n    import json\n"
                                      "if typing.TYPE_CHECKING:\n    from gymnasium import Env\n")
    (bot / "mypkg").mkdir()
    (bot / "mypkg" / "__init__.py").write_text("")
    (bot / "mypkg" / "model.py").write_text("from .util import load\nfrom . import shapes\n")
    (bot / "mypkg" / "util.py").write_text("import polars\n")
    (bot / "mypkg" / "shapes.py").write_text("import numpy\n")
    (bot / "mypkg" / "training.py").write_text("import gymnasium\nimport wandb\n")
    assert stack.missing_imports(bot / "main.py") == {"polars": "mypkg/util.py"}


def test_no_false_alarm_for_the_servers_standard_library_on_a_newer_python(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run by Python 3.13 (the SDK takes 3.11 and later), whose standard library dropped imp, cgi
    and others, `armada play` must not say the server (3.11, which has them) lacks them."""
    import sys

    monkeypatch.setattr(sys, "stdlib_module_names", frozenset(sys.stdlib_module_names - {"imp", "cgi", "asyncore"}))
    bot = write_bot(tmp_path / "old", "import imp, cgi, asyncore\n")
    assert stack.missing_imports(bot / "main.py") == {}


def test_a_folder_bot_s_train_py_counts_for_versions_not_for_missing_modules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The version note reads every file of a folder bot (a model train.py saves must load on the
    server); the "server does not have" note only what main.py runs; a bot given as its main.py
    is read as a single file for both. docs/cli.md says exactly that."""
    bot = write_bot(tmp_path / "mybot", IDLE_GALAXY)
    (bot / "train.py").write_text("import torch\nimport gymnasium\n")
    monkeypatch.setattr(stack, "local_versions", lambda: dict(OTHER))
    play = ["builtin:random", "--seed", "1", "--config", '{"max_turns": 2}', "--json"]
    assert main(["play", str(bot), *play]) == 0
    err = capsys.readouterr().err
    assert "your bot's train.py imports torch: torch 2.5.1 here" in err and "gymnasium" not in err
    assert main(["play", str(bot / "main.py"), *play]) == 0
    err = capsys.readouterr().err
    assert "torch" not in err and "gymnasium" not in err
    docs = " ".join((Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8").split())
    assert ("For this it reads every Python file (subfolders too) of a bot given as a folder or a zip, a "
            "`train.py` beside `main.py` included, on purpose: a model it saves must load on the server.") in docs
    assert ("For this it reads only what the bot runs: its `main.py` and the modules of its folder that it "
            "imports, not a `train.py` beside it;") in docs
    assert ("For a bot given as one `.py` file (a `main.py` too), both notes read only that file and the "
            "modules beside it that it imports.") in docs
