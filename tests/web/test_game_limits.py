"""Per-game match limits come from settings, with protocol.md's defaults and the sandbox's."""

import pytest

from armada_web.ops.limits import game_limits


def test_defaults_follow_the_protocol_and_the_sandbox_brief():
    times, sandbox = game_limits("mothership")
    assert (times.init_ms, times.turn_ms, times.bank_ms) == (5000, 2000, 10000)
    times, sandbox = game_limits("galaxy")
    assert (times.init_ms, times.turn_ms, times.bank_ms) == (5000, 1000, 10000)
    assert (sandbox.memory_mb, sandbox.pids, sandbox.tmp_mb, sandbox.max_line_bytes) == (512, 64, 16, 1024 * 1024)
    assert sandbox.cpus == 1.0


def test_settings_override_per_game(settings):
    settings.ARMADA_GAME_LIMITS = {
        **settings.ARMADA_GAME_LIMITS,
        "galaxy": {"init_ms": 3000, "turn_ms": 500, "bank_ms": 2000, "sandbox": {"memory_mb": 768}},
    }
    times, sandbox = game_limits("galaxy")
    assert (times.init_ms, times.turn_ms, times.bank_ms, sandbox.memory_mb) == (3000, 500, 2000, 768)
    assert game_limits("mothership")[1].memory_mb == 512


def test_bad_settings_name_the_game_and_field(settings):
    settings.ARMADA_GAME_LIMITS = {"galaxy": {"init_ms": 3000, "turn_ms": 0, "bank_ms": 1, "sandbox": {}}}
    with pytest.raises(ValueError, match=r"ARMADA_GAME_LIMITS\['galaxy'\].*turn_ms"):
        game_limits("galaxy")
    with pytest.raises(ValueError, match="no limits configured for game 'chess'"):
        game_limits("chess")
