"""Every command of the quick starts on the home, SDK and docs pages, taken from the pages as a
newcomer copies them and run in a fresh virtual environment against a live site (web server,
validation worker, Docker): pip install the SDK from the site, new, play, replay, login (answering
its prompts on a terminal), submit (until valid), docs. A page whose command stops working fails it."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import time
import urllib.request
import venv
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.pages.browser import PASSWORD

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(900)]
PAGES = ("/", "/sdk/", "/docs/")


class QuickStart(HTMLParser):
    """The text of a page's <pre class="... quick-start">, as a browser's copy gives it."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre" and "quick-start" in (dict(attrs).get("class") or "").split():
            self._depth = 1
            self.blocks.append("")
        elif self._depth:
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.blocks[-1] += data


def commands(url: str) -> list[str]:
    """The commands of the page's quick start (comment lines left out), in order."""
    with urllib.request.urlopen(url, timeout=30) as response:
        parser = QuickStart()
        parser.feed(response.read().decode())
    assert len(parser.blocks) == 1, f"{url} has {len(parser.blocks)} quick starts"
    lines = [line.strip() for line in parser.blocks[0].splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def in_terminal(command: str, env: dict[str, str], cwd: Path, answers: dict[str, str],
                timeout: float = 120) -> tuple[int, str]:
    """Run `command` with a terminal of its own (a pty as its controlling terminal, like a person's
    shell); each prompt in `answers` (`password: `) is answered when it appears. (exit status, output)"""
    controller, terminal = pty.openpty()

    def own_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(["bash", "-c", command], stdin=terminal, stdout=terminal, stderr=terminal, env=env,
                            cwd=cwd, preexec_fn=own_terminal, close_fds=True)
    os.close(terminal)
    output, pending = "", dict(answers)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(controller, 4096).decode(errors="replace")
                except OSError:  # the terminal closed: the command ended
                    break
                if not chunk:
                    break
                output += chunk
                for prompt in list(pending):
                    if output.rstrip(" ").endswith(prompt.rstrip(" ")):
                        os.write(controller, (pending.pop(prompt) + "\n").encode())
            elif proc.poll() is not None:
                break
        return proc.wait(timeout=max(1.0, deadline - time.monotonic())), output
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(controller)


def test_every_quick_start_command_runs_against_the_live_site(validation_site: Any, tmp_path: Path) -> None:
    from armada_web.pages.management.commands.build_sdk_wheel import build_wheel

    build_wheel(validation_site.data_dir / "sdk")  # what `make up` does: the /sdk/ page serves it
    shown = {page: commands(validation_site.url + page) for page in PAGES}
    steps: list[str] = []
    for page in ("/sdk/", "/", "/docs/"):
        steps += [c for c in shown[page] if c not in steps]
    assert any(c.startswith("pip install http") for c in steps) and any(c.startswith("armada submit") for c in steps)
    for page, listed in shown.items():
        assert any(c.startswith("armada login") for c in listed), page

    validation_site.create_user("newcomer", PASSWORD)
    env_dir, home, work = tmp_path / "venv", tmp_path / "home", tmp_path / "work"
    venv.create(env_dir, with_pip=True)
    home.mkdir()
    work.mkdir()
    env = {"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "LANG": "C.UTF-8", "TERM": "dumb", "BROWSER": "true", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    for command in steps:
        if command.startswith("armada login"):
            code, output = in_terminal(command, env, work, {"username: ": "newcomer", "password: ": PASSWORD})
        else:
            done = subprocess.run(["bash", "-c", command], env=env, cwd=work, capture_output=True, text=True,
                                  timeout=400, check=False)
            code, output = done.returncode, done.stdout + done.stderr
        assert code == 0, (f"the quick start's `{command}` failed ({code}):\n{output[-3000:]}\n"
                           f"{validation_site.log('worker')[-2000:]}")
        if command.startswith("pip install"):
            assert Path(env_dir / "bin" / "armada").exists()
            assert sys.executable not in output
        if command.startswith("armada login"):
            assert "logged in as newcomer" in output
        if command.startswith("armada submit"):
            assert "mybot version 1: valid" in output, output
        if command == "armada docs":
            assert "galaxy" in output and "protocol" in output
    assert (work / "mybot" / "main.py").exists() and (work / "game.json.gz").exists()
