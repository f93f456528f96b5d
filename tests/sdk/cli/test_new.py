"""`armada new`: a bot folder from a starter, which then plays; never overwrites."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from armada.botspec import starters_dir
from armada.cli.commands.new import NAME_RULE
from armada.cli.main import main

DOCS = Path(__file__).resolve().parents[3] / "docs" / "cli.md"


@pytest.mark.parametrize(("game", "starter", "expected"), [("galaxy", None, "greedy"),
                                                           ("mothership", "balanced", "balanced")])
def test_new_bot_plays(game: str, starter: str | None, expected: str, tmp_path: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["new", "mybot", "--game", game, "--dir", str(tmp_path)]
    if starter:
        argv += ["--from", starter]
    assert main(argv) == 0
    out = capsys.readouterr().out
    folder = tmp_path / "mybot"
    assert f"created {folder}/" in out
    assert (folder / "main.py").read_bytes() == (starters_dir(game) / f"{expected}.py").read_bytes()
    readme = (folder / "README.md").read_text()
    assert f"armada play {folder} builtin:random --game {game}" in readme
    assert "zip" in readme and "upload" in readme
    assert f"armada submit {folder}\n" in readme and f"armada docs {game}" in readme
    # the starters compared as the site ranks the game: a rating (Galaxy), league points (Mothership
    # Down, whose README said `armada tournament`, a rating the site does not use: a trial)
    compare = f"armada league {folder} " if game == "mothership" else f"armada tournament {folder} "
    assert compare in readme and ("armada tournament" in readme) == (game == "galaxy")
    assert json.loads((folder / "armada.json").read_text()) == {"game": game, "starter": expected}
    code = main(["play", str(folder), "builtin:random", "--game", game, "--seed", "1", "--json",
                 "--config", '{"max_turns": 10}' if game == "galaxy" else "{}"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["players"][0]["status"] == "ok"


def test_new_refuses_to_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "main.py").write_text("# mine\n")
    assert main(["new", "taken", "--game", "galaxy", "--dir", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (folder / "main.py").read_text() == "# mine\n"
    assert not (folder / "README.md").exists() and not (folder / "armada.json").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["new", "x", "--game", "galaxy", "--from", "balanced"], "no starter bot 'balanced' for galaxy; available: "),
        (["new", "../evil", "--game", "galaxy"], "bad bot name"),
        (["new", "a/b", "--game", "galaxy"], "bad bot name"),
        (["new", ".hidden", "--game", "galaxy"], "starting with a letter or digit"),
        (["new", "x\n", "--game", "galaxy"], "bad bot name"),
        (["new", "a" * 65, "--game", "galaxy"], "1 to 64 ASCII letters (a-z, A-Z)"),
        (["new", "x"], "--game"),
    ],
)
def test_new_errors(argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_dir_is_created_with_its_parents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The documented `armada new race --game mothership --dir bots`, where bots/ does not exist yet."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "race", "--game", "mothership", "--dir", "bots"]) == 0
    assert "created bots/race/" in capsys.readouterr().out
    assert (tmp_path / "bots" / "race" / "main.py").is_file()
    assert main(["new", "deep", "--game", "galaxy", "--dir", "a/b/c"]) == 0
    assert (tmp_path / "a" / "b" / "c" / "deep" / "README.md").is_file()


def test_the_try_it_line_pastes_into_a_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An SDK trial: `--dir "dir with space"` printed `armada play dir with space/ok1 ...`, which fails pasted."""
    import shlex

    monkeypatch.chdir(tmp_path)
    assert main(["new", "ok1", "--game", "galaxy", "--dir", "dir with space/\u00fc"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("try it:"))
    assert shlex.split(line.removeprefix("try it:"))[:3] == ["armada", "play", "dir with space/\u00fc/ok1"]
    # and so do the READMEs' commands (the starters' and the imitation starter's)
    assert main(["new", "ok2", "--starter", "imitation", "--dir", "dir with space"]) == 0
    for folder in ("dir with space/\u00fc/ok1", "dir with space/ok2"):
        commands = [shlex.split(x) for x in (tmp_path / folder / "README.md").read_text().splitlines()
                    if x.strip().startswith(("armada play", "armada submit", "armada tournament", "python "))]
        assert len(commands) >= 2 and all(folder in c[2] if c[0] == "armada" else c[1].startswith(folder)
                                           for c in commands), commands


def test_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "bots"
    blocker.write_text("not a folder\n")
    assert main(["new", "race", "--game", "galaxy", "--dir", str(blocker)]) == 2
    assert f"--dir: {blocker} is not a folder" in capsys.readouterr().err
    assert main(["new", "race", "--game", "galaxy", "--dir", str(blocker / "sub")]) == 2
    assert "cannot create" in capsys.readouterr().err
    assert blocker.read_text() == "not a folder\n"


@pytest.mark.parametrize(("name", "ok"), [("a", True), ("9lives", True), ("my.bot_v-2", True), ("a" * 64, True),
                                          ("_x", False), (".x", False), ("a b", False), ("a" * 65, False)])
def test_name_rule_matches_the_check_and_the_docs(name: str, ok: bool, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", name, "--game", "galaxy", "--dir", str(tmp_path)]) == (0 if ok else 2)
    err = capsys.readouterr().err
    assert (tmp_path / name).is_dir() == ok
    if not ok:
        assert NAME_RULE in err
    # docs/cli.md states the rule in the same words (markdown code marks aside)
    assert NAME_RULE.replace("'", "") in DOCS.read_text().replace("`", "").replace("\n", " ")


def test_a_failed_copy_leaves_no_half_made_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Disk full while the files are written: no folder is left, so the same command works once there is room."""
    from armada.cli.commands import new as new_command

    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(new_command.botinfo, "record", no_space)
    assert main(["new", "mybot", "--game", "galaxy", "--dir", str(tmp_path)]) == 2
    target = tmp_path / "mybot"
    assert capsys.readouterr().err == f"armada: error: cannot write into {target}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert main(["new", "mybot", "--game", "galaxy", "--dir", str(tmp_path)]) == 0
    assert sorted(p.name for p in (tmp_path / "mybot").iterdir()) == ["README.md", "armada.json", "main.py"]
    assert (tmp_path / "mybot").stat().st_mode & 0o777 == 0o777 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_dir_name_too_long_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / ("d" * 300)
    assert main(["new", "mybot", "--game", "galaxy", "--dir", str(folder)]) == 2
    assert capsys.readouterr().err == f"armada: error: cannot create {folder / 'mybot'}: File name too long\n"


@pytest.mark.parametrize(("name", "bot"), [("my.bot", "my_bot"), ("w", "w-bot"), ("x" * 64, "x" * 40)])
def test_new_says_the_bot_name_to_submit_when_the_site_refuses_the_folders(
        name: str, bot: str, tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`armada submit my.bot` would fail (the site takes [A-Za-z0-9_-]{3,40}): the warning and the
    README both give the `--bot` that works."""
    assert main(["new", name, "--game", "galaxy", "--dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    folder = tmp_path / name
    assert f"armada: warning: the site does not take {name!r} as a bot name" in err
    assert f"`armada submit {folder} --bot {bot}`" in err
    readme = (folder / "README.md").read_text()
    assert f"armada submit {folder} --bot {bot}\n" in readme and f"creates the bot `{bot}`" in readme
    main(["new", name, "--starter", "imitation", "--dir", str(tmp_path / "imitation")])
    assert f"armada submit {tmp_path / 'imitation' / name} --bot {bot} " in \
        (tmp_path / "imitation" / name / "README.md").read_text()


def test_new_is_silent_about_a_name_the_site_takes(tmp_path: Path, home: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "Rocket_1", "--game", "galaxy", "--dir", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""
    assert f"armada submit {tmp_path / 'Rocket_1'}\n" in (tmp_path / "Rocket_1" / "README.md").read_text()
    # the imitation starter's name is everyone's first choice: its README says to pick another (a trial)
    assert main(["new", "learner", "--starter", "imitation", "--dir", str(tmp_path)]) == 0
    readme = (tmp_path / "learner" / "README.md").read_text()
    assert f"armada submit {tmp_path / 'learner'} --bot learner " in readme
    assert ("if `learner` is taken (the first to follow\nthese steps took `learner`), give another with `--bot`"
            in readme)


def test_the_readme_logs_in_to_the_site_the_sdk_knows(tmp_path: Path, home: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Not the developer's 127.0.0.1: the stored site, else the wheel's, else a placeholder to fill in."""
    from armada import extras
    from armada.cli import config

    def login_line(name: str) -> str:
        assert main(["new", name, "--game", "galaxy", "--dir", str(tmp_path)]) == 0
        text = (tmp_path / name / "README.md").read_text()
        return next(line.strip() for line in text.splitlines() if "armada login" in line)

    monkeypatch.setattr(extras, "where_from", lambda: None)
    assert login_line("one").startswith("armada login https://YOUR-SITE  ")
    assert "the one you downloaded the SDK from" in login_line("two")
    monkeypatch.setattr(extras, "where_from", lambda: "https://arena.example/sdk/armada-0.1.0-py3-none-any.whl")
    assert login_line("three") == "armada login https://arena.example"
    config.save_credentials(config.Credentials("https://mine.example/", "t0k", "me"))
    assert login_line("four") == "armada login https://mine.example"
    assert "127.0.0.1" not in (tmp_path / "four" / "README.md").read_text()
    # the imitation starter's README logs in before it submits too (a learning trial missed the line)
    assert main(["new", "five", "--starter", "imitation", "--dir", str(tmp_path)]) == 0
    lines = [line.strip() for line in (tmp_path / "five" / "README.md").read_text().splitlines()]
    login = lines.index("armada login https://mine.example")
    assert lines[login + 1].startswith("armada submit ")


@pytest.mark.parametrize(("origin", "site"), [
    ("https://arena.example/sdk/armada-0.1.0-py3-none-any.whl", "https://arena.example"),
    ("http://10.0.0.5:8000/sdk/armada-0.1.0-py3-none-any.whl", "http://10.0.0.5:8000"),
    ("file:///home/me/sdk/armada-0.1.0-py3-none-any.whl", None),
    ("https://pypi.example/packages/armada-0.1.0-py3-none-any.whl", None),
    (None, None),
])
def test_the_site_is_read_from_the_wheels_address(origin: str | None, site: str | None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from armada import extras

    monkeypatch.setattr(extras, "where_from", lambda: origin)
    assert extras.site() == site


def test_new_needs_no_readable_config_nor_home(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`armada new` works offline from a fresh account: a damaged or unreadable config file, or no
    home directory at all (a container's uid without a passwd entry and no $HOME: `Path.home()`
    raises RuntimeError), only leaves the README's placeholder site, never a traceback."""
    from armada import extras

    monkeypatch.setattr(extras, "where_from", lambda: None)
    home.parent.mkdir(parents=True)
    home.mkdir()  # a folder where the file should be: unreadable as a file
    assert main(["new", "one", "--game", "galaxy", "--dir", str(tmp_path)]) == 0
    assert "armada login https://YOUR-SITE" in (tmp_path / "one" / "README.md").read_text()
    monkeypatch.delenv("XDG_CONFIG_HOME")

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert main(["new", "two", "--game", "galaxy", "--dir", str(tmp_path)]) == 0
    assert "armada login https://YOUR-SITE" in (tmp_path / "two" / "README.md").read_text()
