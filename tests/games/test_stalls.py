"""A worker that did not run during a game (stopped, starved) is not the bot's timeout (a reliability
trial: a match worker stopped for 30 s gave its bot a timeout and a rated loss, and a validation an
`invalid` upload). `games.stalls` measures the stall; the runner makes such a game nobody's."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings

from armada_web.games import runner, stalls

CHILD = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("stalls", sys.argv[1])
stalls = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stalls)
stalls.watch()
began = time.monotonic()
print("ready", flush=True)
sys.stdin.readline()
print(f"{stalls.stalled_since(began):.2f}", flush=True)
"""


@pytest.mark.parametrize("stopped_s", [0.0, 3.5])
def test_a_stopped_process_measures_its_stall(stopped_s):
    child = subprocess.Popen([sys.executable, "-c", CHILD, stalls.__file__], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.6)
        if stopped_s:
            child.send_signal(signal.SIGSTOP)
            time.sleep(stopped_s)
            child.send_signal(signal.SIGCONT)
        child.stdin.write("go\n")
        child.stdin.flush()
        stalled = float(child.stdout.readline())
    finally:
        child.kill()
        child.wait()
    if stopped_s:
        assert stopped_s - 1.0 <= stalled <= stopped_s + 1.0
    else:
        assert stalled == 0.0


def test_a_timeout_during_a_stall_is_the_platforms(monkeypatch, tmp_path: Path):
    """The runner's side: a seat timed out while the worker stalled: SandboxFailure (the match given
    back, the validation retried), never the result; a stall without a timeout changes nothing."""
    from armada.botspec import starter_file
    from armada_web.storage.archives import check_upload

    statuses = ["timeout", "ok"]
    monkeypatch.setattr(runner._Sandbox, "ready", True)
    monkeypatch.setattr(runner, "_docker_bot", lambda *args, **kwargs: SimpleNamespace(sandbox_fault=""))
    monkeypatch.setattr(runner, "play_match", lambda *args, **kwargs: SimpleNamespace(
        players=[SimpleNamespace(status=status) for status in statuses]))
    asked: list[float] = []
    monkeypatch.setattr(stalls, "stalled_since", lambda since: asked.append(since) or 30.0)
    archive = check_upload(name="main.py", data=starter_file("random", "galaxy").read_bytes()).archive
    seats = {1: ("one", archive), 2: ("two", archive)}
    with pytest.raises(runner.SandboxFailure, match=r"did not run for 30 s .* seat 1 timed out"):
        runner.play(match_id="stall-1", game="galaxy", seed=1, seats=seats, config={})
    # only a stall within the timed-out request's reach counts, not one the bank paid turns before (a review)
    times = settings.ARMADA.game("galaxy").times
    reach = max(times.init_ms, times.turn_ms + times.bank_ms) / 1000 + stalls.CLOSING_S
    assert reach - 1 <= time.monotonic() - asked[-1] <= reach + 5
    statuses[0] = "crashed"  # not a matter of time: the bot's own
    assert runner.play(match_id="stall-2", game="galaxy", seed=1, seats=seats, config={}).players[0].status == "crashed"
    statuses[0] = "timeout"
    monkeypatch.setattr(stalls, "stalled_since", lambda since: 0.0)
    assert runner.play(match_id="stall-3", game="galaxy", seed=1, seats=seats, config={}).players[0].status == "timeout"
