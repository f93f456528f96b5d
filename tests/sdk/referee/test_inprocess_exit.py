"""An in-process bot (`armada.referee.inprocess.InProcessBot`, armada.rl's opponents, `armada.run`'s
callables) that raises SystemExit ends as a process would: its code as the exit status (masked to
a byte, a bool as 0 or 1), quietly; a message is logged and exits 1; any other error is a crash
with its traceback."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from armada.referee.connection import BotGone
from armada.referee.inprocess import InProcessBot


def ended(raised: BaseException) -> InProcessBot:
    def bot(message: dict[str, Any]) -> dict[str, Any]:
        raise raised

    connection = InProcessBot(bot)
    connection.start()
    connection.send(json.dumps({"type": "init", "id": 0, "game": "galaxy", "seat": 1}).encode() + b"\n")
    with pytest.raises(BotGone):  # its output closed: it ended
        connection.read_line(time.monotonic() + 1)
    return connection


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (2, 2), (True, 1), (256, 0), (-1, 255)])
def test_an_exit_code_is_the_status_a_process_would_have(code: Any, status: int) -> None:
    connection = ended(SystemExit(code))
    assert connection.exit_info().returncode == status
    assert connection.log() == ""  # no traceback, as a process prints none


def test_an_exit_message_is_logged_and_exits_1_and_an_error_is_a_crash() -> None:
    said = ended(SystemExit("[armada] giving up"))
    assert said.exit_info().returncode == 1 and said.log() == "[armada] giving up\n"
    crashed = ended(ValueError("boom"))
    assert crashed.exit_info().returncode == 1 and crashed.log().rstrip().endswith("ValueError: boom")
