"""Mothership Down starter bots (`builtin:random`, `builtin:greedy`, `builtin:balanced`)."""
