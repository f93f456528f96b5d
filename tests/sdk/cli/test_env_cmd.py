"""`armada env`: the server's ML stack beside this machine's, each row saying whether they match."""

from __future__ import annotations

import pytest

from armada import stack
from armada.cli.main import main


def test_the_table_names_every_column_and_says_same_or_differs(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    server = stack.SERVER
    local = {name: version for name, version in server.items()}
    first = next(name for name in server if name != "python")
    local[first] = "0.0.1"
    monkeypatch.setattr(stack, "local_versions", lambda: local)
    assert main(["env"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["library", "server", "here", "here", "vs", "server"]
    rows = {line.split()[0]: line.split()[-1] for line in lines[2:2 + len(server)]}
    assert rows[first] == "differs" and all(rows[name] == "same" for name in server if name != first)


def test_a_library_not_installed_here_is_missing_not_different(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """An RL competitor's trial: scikit-learn not installed here read "differs", as if a bot using
    it would behave otherwise; it is "missing" (a bot that does not import it has nothing to mind)."""
    local = dict(stack.SERVER)
    del local["scikit-learn"]
    monkeypatch.setattr(stack, "local_versions", lambda: local)
    assert main(["env"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("scikit-learn"))
    assert row.split()[-3:] == ["not", "installed", "missing"]
