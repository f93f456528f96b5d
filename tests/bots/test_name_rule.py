"""A bot's name follows one rule (`bots.logic.names`); the SDK's CLI keeps a copy to check a name before
it uploads (`armada.cli.botinfo.SITE_NAME_RE`), which must say the same."""

from __future__ import annotations

from armada.cli.botinfo import SITE_NAME_RE, site_name
from armada_web.bots.logic.names import NAME_MAX, NAME_RE, name_problem


def test_the_sdk_checks_the_sites_name_rule():
    assert SITE_NAME_RE.pattern == NAME_RE.pattern


def test_a_name_the_sdk_makes_is_one_the_site_takes():
    for folder in ["my bot", "x", "12345", "a" * (NAME_MAX + 9), "été-bot", "ok_name-1"]:
        assert name_problem(site_name(folder)) is None, folder
