"""Run Armada bots in hardened Docker containers."""
