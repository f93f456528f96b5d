"""The rules and protocol pages: docs/*.md rendered with Python-Markdown, raw HTML escaped."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import markdown
from django.utils.safestring import SafeString, mark_safe

DOCS = Path(__file__).resolve().parents[3] / "docs"
#: Page slug -> (title, Markdown file under docs/).
PAGES = {
    "galaxy": ("Galaxy rules", "games/galaxy.md"),
    "mothership": ("Mothership Down rules", "games/mothership.md"),
    "protocol": ("The bot protocol", "protocol.md"),
    "seasons": ("Seasons, finals and events", "seasons.md"),
}
#: Links between the rendered docs point at their pages; other .md links go to the repository's file names.
LINKS = {"galaxy.md": "/rules/galaxy/", "games/galaxy.md": "/rules/galaxy/", "mothership.md": "/rules/mothership/",
         "games/mothership.md": "/rules/mothership/", "protocol.md": "/rules/protocol/",
         "../protocol.md": "/rules/protocol/"}


def render_markdown(text: str) -> SafeString:
    """HTML of Markdown `text`; any HTML in the text is shown as text, never passed through."""
    md = markdown.Markdown(extensions=["tables", "fenced_code", "toc", "sane_lists"], output_format="html")
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    html = md.convert(text)
    html = re.sub(r'href="([^"#]+\.md)(#[^"]*)?"',
                  lambda m: f'href="{LINKS.get(m.group(1), m.group(1))}{m.group(2) or ""}"', html)
    return mark_safe(html)  # noqa: S308 - Markdown's serializer escapes every text node and attribute


@functools.lru_cache(maxsize=8)
def _cached(path: Path, mtime: float) -> SafeString:
    return render_markdown(path.read_text(encoding="utf-8"))


def page(slug: str) -> tuple[str, SafeString] | None:
    """(title, HTML) of a docs page, None for an unknown slug."""
    if slug not in PAGES:
        return None
    title, name = PAGES[slug]
    path = DOCS / name
    return title, _cached(path, path.stat().st_mtime)
