"""`armada login` and `armada submit` as separate processes against the live site.

They use the `validation_site` fixture (tests/support/fixtures.py): a real web server process and a
Celery validation worker on the test database (it skips without Redis or Docker, and fails under
CI); the challenge's test starts a match worker too. They need of it only
  - `url`: the site's address, e.g. "http://127.0.0.1:PORT";
  - `create_user(username, password)`: a new active user who can log in with that password.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from armada.botspec import starters_dir

#: Longest wait for one validation (the CLI's own --timeout, so that a slow validation fails with
#: the CLI's message, well before the test's own time limit).
WAIT_S = 240
pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(WAIT_S + 120)]

CRASH_AT_IMPORT = '''
import sys
print("about to fail: missing dependency", file=sys.stderr, flush=True)
import no_such_module_for_armada  # noqa: F401
'''


@dataclass
class Cli:
    """Runs `python -m armada.cli.main` with its own config folder, without ARMADA_TOKEN or ARMADA_SERVER."""

    config_home: Path
    server: str

    @property
    def config_file(self) -> Path:
        return self.config_home / "armada" / "config.json"

    def run(self, *argv: str, stdin: str = "", env: dict[str, str] | None = None,
            timeout: float = WAIT_S + 30) -> subprocess.CompletedProcess[str]:
        base = {k: v for k, v in os.environ.items() if k not in ("ARMADA_TOKEN", "ARMADA_SERVER")}
        base["XDG_CONFIG_HOME"] = str(self.config_home)
        return subprocess.run([sys.executable, "-m", "armada.cli.main", *argv], input=stdin, text=True,
                              capture_output=True, env=base | (env or {}), timeout=timeout)

    def login(self, username: str, password: str) -> subprocess.CompletedProcess[str]:
        return self.run("login", "--server", self.server, "--username", username, stdin=password + "\n")

    def submit(self, path: str | Path, bot: str, *extra: str, game: str = "galaxy",
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return self.run("submit", str(path), "--game", game, "--bot", bot, "--timeout", str(WAIT_S), *extra,
                        env=env)


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


PASSWORD = "correct horse battery staple 7"


def _logged_in(site: Any, tmp_path: Path, username: str) -> tuple[Cli, subprocess.CompletedProcess[str]]:
    """A CLI with its own config folder, after `armada login` as a new user `username`."""
    runner = Cli(tmp_path / "xdg", site.url.rstrip("/"))
    site.create_user(username, PASSWORD)
    done = runner.login(username, PASSWORD)
    assert done.returncode == 0, done.stderr
    return runner, done


@pytest.fixture
def cli(validation_site: Any, tmp_path: Path) -> Cli:
    """A logged-in CLI: a fresh user on the live site, `armada login` done."""
    return _logged_in(validation_site, tmp_path, _unique("cli"))[0]


def _galaxy_folder(tmp_path: Path, source: str | None = None) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    if source is None:
        shutil.copyfile(starters_dir("galaxy") / "greedy.py", folder / "main.py")
    else:
        (folder / "main.py").write_text(source.lstrip(), encoding="utf-8")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0junk")
    (folder / ".notes").write_text("left out of the zip\n")
    return folder


def test_login_creates_a_token_in_a_private_file(validation_site: Any, tmp_path: Path) -> None:
    username = _unique("login")
    runner, done = _logged_in(validation_site, tmp_path, username)
    assert f"logged in as {username} on {runner.server}" in done.stdout
    assert stat.S_IMODE(runner.config_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(runner.config_file.parent.stat().st_mode) == 0o700
    stored = json.loads(runner.config_file.read_text())
    assert stored["server"] == runner.server and stored["username"] == username
    request = urllib.request.Request(f"{runner.server}/api/me/", headers={"Authorization": f"Token {stored['token']}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.load(response)["username"] == username

    # logging in again revokes the token stored before, on the real site (DELETE /api/tokens/{id}/)
    again = runner.login(username, PASSWORD)
    assert again.returncode == 0 and f"the token stored before (id {stored['token_id']}) is revoked" in again.stdout
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(request, timeout=10)
    assert gone.value.code == 401

    wrong = runner.login(username, "not the password")
    assert wrong.returncode == 2
    assert wrong.stderr.startswith(f"armada: error: login refused by {runner.server}: ")
    assert wrong.stderr.count("\n") == 1


def test_good_galaxy_folder_is_valid(cli: Cli, tmp_path: Path) -> None:
    name = _unique("good")
    done = cli.submit(_galaxy_folder(tmp_path), name)
    assert done.returncode == 0, (done.stdout, done.stderr)
    lines = done.stdout.splitlines()
    assert f"created bot {name} (galaxy)" in lines
    assert f"{name} version 1: valid" in lines
    assert lines[-1].startswith(f"url: {cli.server}/")


def test_good_mothership_starter_is_valid(cli: Cli) -> None:
    name = _unique("fleet")
    done = cli.submit("builtin:balanced", name, game="mothership")
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert f"{name} version 1: valid" in done.stdout.splitlines()


def test_bot_crashing_at_import_is_invalid_with_its_log(cli: Cli, tmp_path: Path) -> None:
    name = _unique("crash")
    done = cli.submit(_galaxy_folder(tmp_path, CRASH_AT_IMPORT), name)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert f"{name} version 1: invalid: " in done.stdout
    assert "about to fail: missing dependency" in done.stdout  # the log tail
    assert "no_such_module_for_armada" in done.stdout


def test_no_wait_returns_once_uploaded(cli: Cli, tmp_path: Path) -> None:
    name = _unique("nowait")
    done = cli.submit(_galaxy_folder(tmp_path), name, "--no-wait")
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert f"{name} version 1: pending" in done.stdout.splitlines()


def test_same_code_again_is_refused_with_the_sites_message(cli: Cli, tmp_path: Path) -> None:
    name = _unique("twice")
    folder = _galaxy_folder(tmp_path)
    first = cli.submit(folder, name, "--no-wait")
    assert first.returncode == 0, first.stderr
    (folder / "main.py").touch()  # a new timestamp, the same code
    again = cli.submit(folder, name, "--no-wait")
    assert again.returncode == 2, (again.stdout, again.stderr)
    assert again.stderr.startswith("armada: error: upload refused: ")
    assert again.stderr.rstrip("\n").endswith("(HTTP 400)")
    assert again.stderr.count("\n") == 1


def test_bad_token_exits_2(validation_site: Any, tmp_path: Path) -> None:
    runner = Cli(tmp_path / "xdg", validation_site.url.rstrip("/"))
    done = runner.submit("builtin:random", _unique("nobody"),
                         env={"ARMADA_TOKEN": "not-a-token", "ARMADA_SERVER": runner.server})
    assert done.returncode == 2
    assert done.stderr.startswith("armada: error: the server refused the token in ARMADA_TOKEN (")
    assert done.stderr.endswith("): set ARMADA_TOKEN to a valid token, or unset it to use the one `armada login` "
                                "stores\n")
    assert done.stderr.count("\n") == 1


def _demo_bot(site: Any, username: str, name: str, starter: str) -> int:
    """A valid, active Galaxy bot of a new user, as `make up`'s demo bots are (its validation skipped)."""
    from armada.botspec import starter_file
    from armada_web.bots import services
    from armada_web.bots.activation import refresh_active
    from armada_web.bots.models import BotVersion

    owner = site.create_user(username, PASSWORD)
    bot = services.create_bot(user=owner, name=name, game="galaxy")
    version = services.upload_version(bot=bot, user=owner, filename="main.py",
                                      data=starter_file(starter, "galaxy").read_bytes())
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    refresh_active(bot=bot)
    return bot.pk


def test_challenge_a_demo_bot_by_name_and_wait_for_its_result(cli: Cli, validation_site: Any, tmp_path: Path) -> None:
    """cli.md's `armada challenge mybot bea-prober --wait`, against the live site's match worker."""
    name = _unique("mine")
    submitted = cli.submit(_galaxy_folder(tmp_path), name)
    assert submitted.returncode == 0, (submitted.stdout, submitted.stderr)
    validation_site.start_match_worker()
    _demo_bot(validation_site, _unique("demo-bea"), "bea-prober", "prober")
    done = cli.run("challenge", name, "bea-prober", "--wait", "--timeout", str(WAIT_S))
    assert done.returncode == 0, (done.stdout, done.stderr, validation_site.log("worker-matches")[-3000:])
    lines = done.stdout.splitlines()
    number = lines[0].split()[1]
    assert lines[0] == f"match {number} queued: {name} v1 (seat 1) vs bea-prober v1 (seat 2)"
    page = f"{cli.server}/matches/{number}/"
    assert lines[1] == f"url: {page}" and lines[-1] == f"url: {page}"
    assert f"match {number}: finished" in lines
    winner = next(line for line in lines if line.startswith("winner:"))
    assert winner == "winner:  draw" or "v1, by " in winner
    assert f"replay:  {cli.server}/api/matches/{number}/replay/" in lines
    assert done.stderr.splitlines()[-1] == f"armada: match {number}: finished"
    with urllib.request.urlopen(page, timeout=10) as response:  # the page it printed shows the result
        html = response.read().decode()
    assert 'id="result"' in html and ("won" in html or "Draw" in html) and name in html
    refused = cli.run("challenge", "bea-prober", name)
    assert refused.returncode == 2
    assert refused.stderr == ("armada: error: challenge refused: not your bot: challenge with one of your own bots "
                              "(HTTP 403)\n")
