"""The quick start the home, SDK and docs pages show: every command in it is run against a live site
by tests/pages/test_quick_start.py, so the pages cannot drift from the CLI."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One command a newcomer types, and what it does."""

    command: str
    comment: str


def quick_start(*, site_url: str, wheel_url: str | None) -> list[Step]:
    """From nothing to a validated bot on this site (`wheel_url` None: the SDK wheel is not built yet)."""
    steps = [Step(f"pip install {wheel_url}", "the SDK: Python 3.11+, nothing else")] if wheel_url else []
    return [*steps,
        Step("armada new mybot --game galaxy", "a starter bot in ./mybot"),
        Step("armada play mybot builtin:greedy --replay game.json.gz", "a local match; prints the summary"),
        Step("armada replay game.json.gz --open", "watch it in your browser"),
        Step(f"armada login {site_url}", "your username and password; keeps an API token"),
        Step("armada submit mybot", "upload it; waits for its validation game"),
        Step("armada docs", "the rules, the protocol and the bot library, offline"),
    ]

