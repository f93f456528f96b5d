"""The documents a bot author reads, shipped inside the SDK: `armada docs`, and the site's /docs/.

These Markdown files are the only copy: the repository's docs/ folder links to them, and
the site renders the same files. Links between them are relative (`protocol.md`,
`games/galaxy.md`, `../protocol.md` from games/) and resolve alike in the repository and in
an installed SDK. The API is tiny and standard library only:

    >>> from armada import docs
    >>> [t.slug for t in docs.topics()][:3]
    ['galaxy', 'galaxy-schema', 'mothership']
    >>> docs.text("protocol").splitlines()[0]
    '# The bot protocol (version 1)'
    >>> docs.topic("cli").title
    'The armada command line'
    >>> docs.resolve_link("galaxy", "../protocol.md#time")
    ('protocol', 'time')
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import NamedTuple

#: The folder holding the documents (inside the installed package).
ROOT = Path(__file__).resolve().parent

#: Slug -> the document's file under ROOT, in reading order.
FILES: dict[str, str] = {
    "galaxy": "games/galaxy.md",
    "galaxy-schema": "games/galaxy-schema.md",
    "mothership": "games/mothership.md",
    "protocol": "protocol.md",
    "bot-library": "bot-library.md",
    "bots-environment": "bots-environment.md",
    "cli": "cli.md",
    "replay-format": "replay-format.md",
    "viewer": "viewer.md",
    "decisions": "decisions.md",
    "rl": "rl.md",
    "imitation": "imitation.md",
}


#: The site's own documents (about what only a site does): on a site at /docs/SLUG/, not in the SDK.
SITE_ONLY: tuple[str, ...] = ("seasons", "ratings")


class Topic(NamedTuple):
    """One document: its slug (`armada docs SLUG`, /docs/SLUG/), its title (its first heading), its file."""

    slug: str
    title: str
    path: Path

    @property
    def name(self) -> str:
        """The file's path under ROOT, as links between the documents name it (`games/galaxy.md`)."""
        return FILES[self.slug]


class UnknownTopic(KeyError):
    """A slug that names no document; its message lists the slugs."""

    def __str__(self) -> str:
        return str(self.args[0])


def _title(path: Path) -> str:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("# "):
                return line[2:].replace("`", "").strip()
    return path.stem


def topics() -> list[Topic]:
    """Every document, in reading order."""
    return [Topic(slug, _title(ROOT / name), ROOT / name) for slug, name in FILES.items()]


def topic(slug: str) -> Topic:
    """The document `slug` (also accepted: its file name, `games/galaxy.md`); UnknownTopic otherwise."""
    for slug_, name in FILES.items():
        if slug in (slug_, name):
            return Topic(slug_, _title(ROOT / name), ROOT / name)
    if slug in SITE_ONLY:  # (a trial: `armada docs ratings` said only "no document")
        raise UnknownTopic(f"{slug!r} is one of the site's own documents, not in the SDK: read it on the site, at "
                           f"/docs/{slug}/; the topics here are: {', '.join(FILES)}")
    raise UnknownTopic(f"no document {slug!r}; the topics are: {', '.join(FILES)}")


def text(slug: str) -> str:
    """The Markdown text of document `slug`; UnknownTopic for an unknown one."""
    return topic(slug).path.read_text(encoding="utf-8")


def image_name(from_slug: str, src: str) -> str | None:
    """The file name in `ROOT/images/` an image of document `from_slug` shows (`images/x.png`), None
    when `src` is no shipped image."""
    if "://" in src or src.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(FILES.get(from_slug, "")), src))
    folder, _, name = joined.rpartition("/")
    return name if folder == "images" and name and (ROOT / "images" / name).is_file() else None


def resolve_link(from_slug: str, href: str) -> tuple[str, str] | None:
    """(slug, anchor) a relative link in document `from_slug` points at, None when it is no document's.

    `href` is as written in the Markdown (`decisions.md`, `../protocol.md#time`); the anchor is
    '' without one. Absolute addresses and links to other files give None.
    """
    target, _, anchor = href.partition("#")
    if not target:
        return (from_slug, anchor) if from_slug in FILES else None
    if "://" in target or target.startswith(("/", "mailto:")):
        return None
    base = posixpath.dirname(FILES.get(from_slug, ""))
    joined = posixpath.normpath(posixpath.join(base, target))
    for slug, name in FILES.items():
        if name == joined:
            return slug, anchor
    return None
