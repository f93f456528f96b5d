"""Reads request `when` and never answers it (but keeps reading, and exits at end)."""
from _raw import play

play(lambda msg: None)
