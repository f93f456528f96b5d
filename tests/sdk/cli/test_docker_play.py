"""`armada play --sandbox docker`: the same match, each bot in its hardened container."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from armada.cli.main import main
from tests.sdk.cli.bots import without_time
from tests.support.services import require_docker

pytestmark = pytest.mark.docker


def test_play_in_docker_with_builtin_and_zip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_docker()
    from armada.botspec import starters_dir

    bot_zip = tmp_path / "mine.zip"
    with zipfile.ZipFile(bot_zip, "w") as zf:
        zf.write(starters_dir("galaxy") / "random.py", "mine/main.py")
    code = main(["play", "builtin:greedy", str(bot_zip), "--sandbox", "docker", "--seed", "3",
                 "--config", '{"max_turns": 10}', "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    from armada_sandbox import BOT_IMAGE

    assert f"armada: bots run in Docker image {BOT_IMAGE} (ARMADA_BOT_IMAGE" in captured.err
    result = json.loads(captured.out)
    assert [p["status"] for p in result["players"]] == ["ok", "ok"], result
    assert [p["name"] for p in result["players"]] == ["Greedy", "Random"]
    # the sandbox measures each bot's memory peak (a trial found it collected and never shown)
    assert all(isinstance(p["memory_peak_mib"], int) and 5 < p["memory_peak_mib"] < 512 for p in result["players"])
    # the same match as local processes gives the same result (GX-23)
    assert main(["play", "builtin:greedy", str(bot_zip), "--seed", "3", "--config", '{"max_turns": 10}',
                 "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert without_time(local) == without_time(result)
    assert [p["memory_peak_mib"] for p in local["players"]] == [None, None]  # a local process: not measured
    assert main(["play", "builtin:greedy", str(bot_zip), "--sandbox", "docker", "--seed", "3",
                 "--config", '{"max_turns": 10}']) == 0
    shown = capsys.readouterr().out
    assert re.search(r"^memory:  seat 1: peak \d+ MiB\n         seat 2: peak \d+ MiB$", shown, re.MULTILINE), shown


WHO_AM_I = """
import os, sys
from armada.bot.galaxy import GalaxyBot
from armada.bot.runtime import run

print(f"SLOT uid={os.getuid()} cpus={sorted(os.sched_getaffinity(0))}", file=sys.stderr, flush=True)


class Bot(GalaxyBot):
    name = "Who"

    def scout(self, obs):
        return []

    def command(self, obs, intel, warnings):
        return []


run(Bot())
"""


def test_docker_play_runs_bots_in_slots_and_leaves_no_container(tmp_path: Path) -> None:
    """Issue 12: the CLI's containers are a worker's (a slot's uid and CPU), all gone within 2 s of exit."""
    require_docker()
    import os
    import subprocess
    import sys
    import time

    from armada_sandbox._engine import docker_client
    from armada_sandbox.slots import SLOT_UID_BASE

    bot = tmp_path / "who"
    bot.mkdir()
    (bot / "main.py").write_text(WHO_AM_I)
    os.chmod(bot, 0o755)
    slots = tmp_path / "slots"
    env = {**os.environ, "ARMADA_SANDBOX_SLOT_DIR": str(slots)}
    armada = str(Path(sys.executable).with_name("armada"))
    done = subprocess.run([armada, "play", str(bot), "builtin:greedy", "--sandbox", "docker", "--config",
                           '{"max_turns": 5}', "--log-dir", str(tmp_path / "logs"), "--json"],
                          env=env, capture_output=True, text=True, timeout=120)
    exited = time.monotonic()
    assert done.returncode == 0, done.stderr
    client = docker_client()
    while client.containers.list(all=True, filters={"label": f"armada.slots={slots}"}):
        assert time.monotonic() - exited < 2.0, "a container of the run outlived it by 2 s"
        time.sleep(0.05)
    log = next((tmp_path / "logs").glob("seat1-*.log")).read_text()
    uid, cpus = int(log.split("SLOT uid=")[1].split()[0]), log.split("cpus=")[1].splitlines()[0]
    assert SLOT_UID_BASE <= uid < SLOT_UID_BASE + 1000
    assert cpus.count(",") == 0  # one CPU: its slot's


def _armada_play_in_docker(env_changes: dict[str, str]) -> tuple[int, str]:
    """Run `armada play builtin:greedy builtin:random --sandbox docker` with `env_changes`: (exit code, stderr)."""
    import os
    import subprocess
    import sys

    armada = str(Path(sys.executable).with_name("armada"))
    done = subprocess.run([armada, "play", "builtin:greedy", "builtin:random", "--sandbox", "docker"],
                          env={**os.environ, **env_changes}, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stderr


def test_docker_play_without_an_engine_says_so_in_one_line() -> None:
    """Issue 15: DOCKER_HOST pointing at a dead socket: one clear line, exit 2, nothing played."""
    code, err = _armada_play_in_docker({"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("armada: error: --sandbox docker: the Docker engine is not reachable at "
                          "unix:///nonexistent/docker.sock (")
    assert err.rstrip().endswith("; or use --sandbox process")


def test_docker_play_without_the_image_says_so_in_one_line() -> None:
    require_docker()
    code, err = _armada_play_in_docker({"ARMADA_BOT_IMAGE": "armada/no-such-image:missing"})
    assert code == 2, err
    assert err == ("armada: error: --sandbox docker: bot image armada/no-such-image:missing is missing; build it with "
                   "`ARMADA_BOT_IMAGE=armada/no-such-image:missing make bot-image` (infra/images/bot/build.sh); or use "
                   "--sandbox process\n")
