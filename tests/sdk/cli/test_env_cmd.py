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
