"""The bot author's documents on the site (/docs/): the SDK's shipped files (`armada.docs`), rendered
with Python-Markdown. Raw HTML in a document is shown as text; links between the documents point at
their /docs/ pages (`armada.docs.resolve_link`); every heading has an anchor and a permalink, and
each page has a table of contents. `armada docs` prints and opens the same files offline.

The site also has documents of its own, about what only the site does (`SITE_FILES`: seasons,
finals and events; how a rating moves), shipped in this package under site_docs/ (docs/ links to them) and rendered
the same way; they are not in the SDK."""

from __future__ import annotations

import functools
import html as html_lib
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import markdown
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions import Extension
from markdown.extensions.toc import TocExtension
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from armada import docs

_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+\S")
_FENCE = re.compile(r"^\s*(```|~~~)")
#: The folder of the site's own documents, and slug -> file in it.
SITE_ROOT = Path(__file__).resolve().parent / "site_docs"
SITE_FILES: dict[str, str] = {slug: f"{slug}.md" for slug in docs.SITE_ONLY}


@dataclass(frozen=True)
class DocPage:
    """One rendered document: its slug, title, body and table of contents (both HTML)."""

    slug: str
    title: str
    #: The document's own heading (h1), then the rest.
    head: SafeString
    html: SafeString
    toc: SafeString
    #: An SDK document (`armada docs SLUG` prints it), not one of the site's own.
    offline: bool = True


class _ListsAfterParagraphs(Preprocessor):
    """A list right under a paragraph line (`**A turn.** ...` then `1. Scout`) starts a list, as it does
    on GitHub and in `armada docs --open`: Python-Markdown alone would glue it to the paragraph."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fenced = False
        for line in lines:
            if _FENCE.match(line):
                fenced = not fenced
            previous = out[-1] if out else ""
            if (not fenced and _ITEM.match(line) and previous.strip() and not previous.startswith((" ", "\t", "|"))
                    and not _ITEM.match(previous)):
                out.append("")
            out.append(line)
        return out


class _DocLinks(Treeprocessor):
    """Links to another document (`protocol.md#time`, `../protocol.md`) go to its /docs/ page; an
    image of the SDK's documents (`images/viewer-galaxy.png`) is served as a static file."""

    def __init__(self, md: markdown.Markdown, slug: str) -> None:
        super().__init__(md)
        self.slug = slug

    def run(self, root: etree.Element) -> None:
        for link in root.iter("a"):
            found = docs.resolve_link(self.slug, link.get("href", ""))
            if found is not None and not link.get("href", "").startswith("#"):
                target, anchor = found
                link.set("href", doc_url(target) + (f"#{anchor}" if anchor else ""))
        for image in root.iter("img"):
            name = docs.image_name(self.slug, image.get("src", ""))
            if name is not None:
                image.set("src", static(f"armada/docs-images/{name}"))


#: Where a long inline code span may wrap: after a dot, slash, underscore, opening bracket or comma.
_CODE_BREAK = re.compile(r"(?<=[./_(\[,])(?=[^\s)\]])")


class _BreakableCode(Treeprocessor):
    """A long inline code span (`armada.replay.game_content(replay)`) may wrap after its punctuation
    (a <wbr>), so that on a phone it breaks between its names, not inside one; code blocks keep their lines."""

    def run(self, root: etree.Element) -> None:
        blocks = {id(code) for pre in root.iter("pre") for code in pre.iter("code")}
        for code in root.iter("code"):
            text = code.text or ""
            if id(code) in blocks or len(code) or len(text) < 20:
                continue
            first, *rest = _CODE_BREAK.split(text)
            code.text = AtomicString(first)
            for part in rest:
                etree.SubElement(code, "wbr").tail = AtomicString(part)


class _Site(Extension):
    def __init__(self, slug: str) -> None:
        super().__init__()
        self.slug = slug

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.preprocessors.register(_ListsAfterParagraphs(md), "lists-after-paragraphs", 5)
        md.treeprocessors.register(_DocLinks(md, self.slug), "doc-links", 1)
        md.treeprocessors.register(_BreakableCode(md), "breakable-code", 0)


def doc_url(slug: str) -> str:
    return reverse("doc", args=[slug])


def _converter(slug: str = "") -> markdown.Markdown:
    return markdown.Markdown(
        extensions=["tables", "fenced_code", "sane_lists", _Site(slug),
                    TocExtension(permalink="#", permalink_class="anchor", permalink_title="a link to this section")],
        output_format="html")


def render_markdown(text: str, slug: str = "") -> SafeString:
    """HTML of Markdown `text` (links resolved as from document `slug`); HTML in the text is shown as text."""
    return mark_safe(_converter(slug).convert(text))  # noqa: S308 - Markdown escapes every text node and attribute


@functools.lru_cache(maxsize=32)
def _render(slug: str, mtime: float) -> DocPage:
    topic = _topic(slug)
    md = _converter(slug)
    html = md.convert(topic.path.read_text(encoding="utf-8"))
    head, body = ("", html)
    if html.startswith("<h1"):
        end = html.index("</h1>") + len("</h1>")
        head, body = html[:end], html[end:]
    return DocPage(slug, topic.title, mark_safe(head), mark_safe(body),  # noqa: S308 - as render_markdown
                   _toc(getattr(md, "toc_tokens", [])), offline=slug in docs.FILES)


def _toc(tokens: list[dict[str, Any]], depth: int = 3) -> SafeString:
    """The sections of levels 2..depth as nested lists of links (the page's own title left out)."""
    def items(nodes: list[dict[str, Any]]) -> SafeString:
        shown = [n for n in nodes if n["level"] <= depth]
        return format_html_join("", "<li><a href=\"#{}\">{}</a>{}</li>", (
            (n["id"], html_lib.unescape(n["name"]), format_html("<ul>{}</ul>", items(n["children"]))
             if any(c["level"] <= depth for c in n["children"]) else "") for n in shown))

    sections = [child for token in tokens for child in (token["children"] if token["level"] == 1 else [token])]
    return format_html("<ul>{}</ul>", items(sections)) if sections else mark_safe("")


def topics() -> list[docs.Topic]:
    """Every SDK document, in reading order (armada.docs)."""
    return docs.topics()


def site_topics() -> list[docs.Topic]:
    """The site's own documents (`SITE_FILES`)."""
    return [_site_topic(slug) for slug in SITE_FILES]


def _site_topic(slug: str) -> docs.Topic:
    path = SITE_ROOT / SITE_FILES[slug]
    with path.open(encoding="utf-8") as lines:
        title = next((line[2:].replace("`", "").strip() for line in lines if line.startswith("# ")), slug)
    return docs.Topic(slug, title, path)


def _topic(slug: str) -> docs.Topic:
    return _site_topic(slug) if slug in SITE_FILES else docs.topic(slug)


#: The site's address in the SDK's documents (they are read offline too); the site shows its own.
PLACEHOLDER_SITE = "https://your-armada-site.example"


def for_site(found: DocPage, *, site_url: str) -> DocPage:
    """`found` with this site's address where the document has the placeholder's (`pip install
    "armada[learn] @ https://your-armada-site.example/sdk/..."` becomes a line that works here)."""
    address = html_lib.escape(site_url.rstrip("/"), quote=True)
    if PLACEHOLDER_SITE not in found.html:
        return found
    return replace(found, html=mark_safe(found.html.replace(PLACEHOLDER_SITE, address)))  # noqa: S308 (escaped)


def page(slug: str) -> DocPage | None:
    """The rendered document `slug` (the SDK's or the site's own), None for an unknown slug."""
    if slug not in docs.FILES and slug not in SITE_FILES:
        return None
    path = _topic(slug).path
    return _render(slug, path.stat().st_mtime)
