"""Help and version: every command documents itself with examples."""

from __future__ import annotations

import pytest

from armada import __version__
from armada.cli.main import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"armada {__version__}"


def test_top_level_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("play", "tournament", "new", "replay", "league", "login", "submit", "challenge", "dataset",
                    "docs"):
        assert f"    {command}" in out
    assert "examples:" in out


@pytest.mark.parametrize("command", ["play", "tournament", "new", "replay", "league", "login", "submit", "challenge",
                                     "dataset", "docs"])
def test_each_command_help_has_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: armada {command}")
    assert "examples:" in out
    assert f"armada {command} " in out.split("examples:")[1]


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: armada" in capsys.readouterr().err
    assert main(["fly"]) == 2
    assert "invalid choice: 'fly'" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "usage", "bad"), [
    (["play", "a", "b", "c"], "usage: armada play ", "unrecognized arguments: c"),
    (["play", "a", "b", "--bogus"], "usage: armada play ", "unrecognized arguments: --bogus"),
    (["tournament", "a", "b", "--bogus"], "usage: armada tournament ", "unrecognized arguments: --bogus"),
    (["new", "x", "y", "--game", "galaxy"], "usage: armada new ", "unrecognized arguments: y"),
    (["replay", "f", "g"], "usage: armada replay ", "unrecognized arguments: g"),
])
def test_extra_arguments_show_the_subcommand_usage(argv: list[str], usage: str, bad: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert f"armada {argv[0]}: error: {bad}" in err
    assert "COMMAND ..." not in err
