"""The site's own seasons page (/docs/seasons/, pages/site_docs/seasons.md: what users read) and
docs/seasons.md tell the same private-event rules: who sees a private event (events.access, the
members of each team that entered a bot too), that its matches are hidden from everyone else and left
out of the bots' public records (matches.access), and what staff voiding a counted game does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "docs" / "seasons.md", ROOT / "platform" / "armada_web" / "pages" / "site_docs" / "seasons.md"]
RULES = [
    "members of each team that entered a bot",
    "a private event's match does not exist",
    "no match list shows it",
    "head-to-head, records by version and last faults",
    "Staff voiding an event's match",
    "a finished event's table is final and stays",
]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.parent.name + "/" + p.name)
def test_each_seasons_doc_tells_the_private_event_rules(doc):
    text = re.sub(r"\s+", " ", doc.read_text())
    assert [rule for rule in RULES if rule not in text] == []


def test_the_site_s_own_documents_are_the_repository_s():
    """docs/seasons.md once became a copy of the site's file (a link before) and the two drifted
    apart for days: the site served the older text. Each site document in docs/ is a link to the
    file the site renders."""
    from armada_web.pages.docs import SITE_FILES, SITE_ROOT

    for name in SITE_FILES.values():
        assert (ROOT / "docs" / name).is_symlink(), f"docs/{name} is a copy, not a link to {SITE_ROOT / name}"
        assert (ROOT / "docs" / name).resolve() == (SITE_ROOT / name).resolve()
