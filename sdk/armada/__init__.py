"""Armada SDK: engines, referee, bot library and command line for the Armada arena."""

__version__ = "0.1.0"
