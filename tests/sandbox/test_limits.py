"""SandboxLimits: defaults, validation, per-game and environment overrides."""

from __future__ import annotations

import pytest

from armada_sandbox.limits import SandboxLimits, env_overrides, limits_for


def test_defaults_match_the_brief():
    limits = SandboxLimits()
    assert (limits.memory_mb, limits.pids, limits.tmp_mb, limits.cpus) == (1024, 64, 16, 1.0)
    assert limits.max_line_bytes == 1024 * 1024
    assert limits.memory_bytes == 1024 * 1024 * 1024
    assert limits.validate() is limits


def test_replace_converts_and_validates():
    limits = SandboxLimits().replace({"memory_mb": "256", "cpus": "0.5"})
    assert (limits.memory_mb, limits.cpus) == (256, 0.5)
    with pytest.raises(ValueError, match="unknown sandbox limit 'memroy_mb'"):
        SandboxLimits().replace({"memroy_mb": 1})
    with pytest.raises(ValueError, match="pids: must be a number >= 8"):
        SandboxLimits().replace({"pids": 2})
    with pytest.raises(ValueError, match="memory_mb: not a number"):
        SandboxLimits().replace({"memory_mb": "lots"})
    with pytest.raises(ValueError, match="tmp_mb"):
        SandboxLimits().replace({"memory_mb": 64, "tmp_mb": 64})
    with pytest.raises(ValueError, match="max_output_bytes"):
        SandboxLimits().replace({"max_output_bytes": 1024})
    with pytest.raises(ValueError, match=r"memory_mb: must be a number >= 32, got True"):
        SandboxLimits(memory_mb=True).validate()  # (a bool is an int to Python, not a size)


def test_env_overrides_general_then_game():
    env = {"ARMADA_SANDBOX_MEMORY_MB": "300", "ARMADA_SANDBOX_GALAXY_MEMORY_MB": "700",
           "ARMADA_SANDBOX_PIDS": "100", "UNRELATED": "1"}
    assert env_overrides(env) == {"memory_mb": "300", "pids": "100"}
    assert limits_for("galaxy", env=env).memory_mb == 700
    assert limits_for("mothership", env=env).memory_mb == 300
    assert limits_for("galaxy", env={}).memory_mb == 1024


def test_settings_overrides_come_before_the_environment():
    limits = limits_for("mothership", {"memory_mb": 256, "tmp_mb": 8}, env={"ARMADA_SANDBOX_TMP_MB": "4"})
    assert (limits.memory_mb, limits.tmp_mb) == (256, 4)
    with pytest.raises(ValueError, match="nofile"):
        limits_for(None, {"nofile": 1}, env={})
