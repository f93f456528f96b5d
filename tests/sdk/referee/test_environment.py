"""The one bot environment (docs/bots-environment.md): ProcessBot gets exactly it, and ARMADA_BOT_SEED."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from armada.referee.environment import SEED_VARIABLE, bot_environment, bot_seed
from armada.referee.process_bot import ProcessBot

REPORT = (
    "import json, os, sys, tempfile\n"
    "sys.stderr.write(json.dumps({'env': dict(os.environ), 'cwd': os.getcwd(),\n"
    "                             'tmp': tempfile.gettempdir()}) + '\\n')\n"
    "sys.stderr.flush()\n"
    "print('done', flush=True)\n"
)


def report(tmp_path: Path, **kwargs: object) -> tuple[dict, ProcessBot]:
    script = tmp_path / "main.py"
    script.write_text(REPORT)
    bot = ProcessBot.for_script(script, **kwargs)  # type: ignore[arg-type]
    bot.bot_seed = 12345
    bot.start()
    try:
        assert bot.read_line(time.monotonic() + 20) == b"done"
        assert bot.env is not None or (bot.home is not None and os.path.isdir(bot.home))
    finally:
        bot.close()
    return json.loads(bot.log()), bot


def test_process_bot_gets_the_sandbox_environment_and_nothing_of_the_shell(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("SECRET_TOKEN", "x")
    seen, _ = report(tmp_path)
    home = seen["env"]["HOME"]
    assert seen["env"] == bot_environment(sandbox="process", workdir=str(tmp_path.resolve()), home=home,
                                          seed=12345)
    assert "PYTHONUNBUFFERED" not in seen["env"] and "SECRET_TOKEN" not in seen["env"]
    assert seen["cwd"] == str(tmp_path.resolve())  # its own folder, as /bot in the container
    assert seen["tmp"] == home  # tempfile writes into the private folder (the container's /tmp)
    assert not os.path.exists(home)  # removed with the bot


def test_an_explicit_env_is_kept_and_gets_the_seed(tmp_path):
    seen, _ = report(tmp_path, env={"PATH": os.environ.get("PATH", ""), "MINE": "1"})
    assert seen["env"]["MINE"] == "1" and seen["env"][SEED_VARIABLE] == "12345"


def test_the_docker_and_local_environments_have_the_same_variables():
    local = bot_environment(sandbox="process", workdir="/home/me/bot", home="/tmp/x", seed=1)
    docker = bot_environment(sandbox="docker", workdir="/bot", home="/tmp", seed=1)
    assert set(local) == set(docker)
    same = {k for k in local if local[k] == docker[k]}
    assert set(local) - same == {"PWD", "HOME", "TMPDIR", "ARMADA_SANDBOX"}


def test_bot_seed_is_a_keyed_one_way_function_of_seed_and_seat():
    # protocol.md "Environment": no bot learns the match seed, yet its randomness follows it
    assert bot_seed(7, 1) == bot_seed(7, 1)
    values = {bot_seed(7, 1), bot_seed(7, 2), bot_seed(8, 1), bot_seed(7, 1, b"secret")}
    assert len(values) == 4
    assert all(0 <= v < 2**63 for v in values)
    assert bot_seed(7, 1) not in (7, 1, 8)


@pytest.mark.parametrize("seat", [1, 2])
def test_play_match_hands_each_bot_its_seed(tmp_path, seat):
    from tests.sdk.referee.sumrace import SUMRACE  # a tiny game for referee tests

    script = tmp_path / "main.py"
    script.write_text(
        "import json, os, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'end': break\n"
        "    print('SEED', os.environ.get('ARMADA_BOT_SEED'), file=sys.stderr, flush=True)\n"
        "    print(json.dumps({'id': m['id'], 'n': 1}), flush=True)\n"
    )
    from armada.referee.match import play_match

    bots = {s: ProcessBot([sys.executable, str(script)], cwd=str(tmp_path)) for s in (1, 2)}
    outcome = play_match(SUMRACE, bots, seed=99, bot_seed_key=b"")
    assert f"SEED {bot_seed(99, seat)}" in outcome.players[seat - 1].log
