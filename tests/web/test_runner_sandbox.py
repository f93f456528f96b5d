"""matches/runner.py: a bot the sandbox cannot start (SandboxUnavailable out of play_match) is a
platform failure (the match is void), never a seat's `crashed` (issue 15)."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.services import require_docker


def archive(source: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("main.py", source)
    return buffer.getvalue()


def test_a_bot_the_sandbox_cannot_start_is_a_platform_failure(settings, monkeypatch):
    require_docker()
    from armada_web.matches import runner

    monkeypatch.setattr(runner, "check_docker", lambda: None)  # so the start itself meets the missing image
    settings.DOCKER_BOT_IMAGE = "armada/no-such-image:missing"
    seats = {1: ("one", archive("print(1)\n")), 2: ("two", archive("print(2)\n"))}
    with pytest.raises(runner.PlatformFailure, match=r"the sandbox is unavailable \(the sandbox could not start "
                                                     r"'(one|two)': bot image armada/no-such-image:missing is missing"):
        runner.play("test-unavailable", "mothership", 5, seats)


def test_the_pre_check_names_the_missing_image(settings):
    require_docker()
    from armada_web.matches import runner

    settings.DOCKER_BOT_IMAGE = "armada/no-such-image:missing"
    with pytest.raises(runner.PlatformFailure, match="the sandbox is unavailable \\(bot image "
                                                     "armada/no-such-image:missing is missing"):
        runner.check_docker()
