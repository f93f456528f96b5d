"""Starter bots, one folder per game; each module is a runnable bot script (`builtin:<name>`)."""
