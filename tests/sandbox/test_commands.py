"""`python -m armada_sandbox check | sweep | seccomp`: the operators' commands, one line per failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from armada_sandbox import BOT_IMAGE
from armada_sandbox._seccomp import profile

DEAD = "unix:///nonexistent/docker.sock"


def command(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-m", "armada_sandbox", *args],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=60)


def test_check_says_what_it_found(docker_client):
    done = command("check")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("docker ") and f"bot image {BOT_IMAGE} present" in done.stdout


def test_check_and_sweep_without_an_engine_say_so_in_one_line():
    for args in (["check"], ["sweep", "--max-age", "60"]):
        done = command(*args, DOCKER_HOST=DEAD)
        assert done.returncode == 1, (args, done.stderr)
        assert done.stderr.startswith(f"armada_sandbox: the Docker engine is not reachable at {DEAD} ("), done.stderr
        assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_check_of_a_missing_image_names_it(docker_client):
    done = command("check", "--image", "armada/no-such-image:missing")
    assert (done.returncode, done.stderr) == (1, "armada_sandbox: bot image armada/no-such-image:missing is missing; "
                                                 "build it with `ARMADA_BOT_IMAGE=armada/no-such-image:missing make "
                                                 "bot-image` (infra/images/bot/build.sh)\n")  # the tag to build


def test_seccomp_prints_the_profile_the_containers_get():
    done = command("seccomp")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == profile()


def test_a_command_is_required():
    done = command()
    assert done.returncode == 2 and "COMMAND" in done.stderr
