"""The shipped documents as self-contained HTML pages, for `armada docs --open` (standard library only).

A small Markdown reader for what these documents use: headings (with the anchors Python-Markdown's
table of contents gives them, so `page.html#time` means the same here and on the site), paragraphs,
lists, tables, fenced code, inline code, emphasis and links. Every text is escaped; links between
the documents point at the sibling pages `SLUG.html`. The site renders the same files its own way.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from armada import docs

_FENCE = re.compile(r"^(```+)\s*([\w+-]*)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
_TABLE_RULE = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)")

STYLE = """
body { margin: 0; font: 16px/1.55 system-ui, sans-serif; color: #1d2330; background: #fbfbfd; }
nav { display: flex; flex-wrap: wrap; gap: 0.3rem 1.1rem; padding: 0.8rem 1.2rem; background: #141a2a; }
nav a { color: #c9d6ff; text-decoration: none; }
nav a.here { color: #fff; font-weight: 600; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
a { color: #2450c8; }
code { font: 0.9em ui-monospace, monospace; background: #eef0f6; padding: 0.05em 0.3em; border-radius: 3px; }
pre { background: #f0f2f8; padding: 0.8rem; overflow-x: auto; border-radius: 4px; }
pre code { background: none; padding: 0; }
.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d5d9e4; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #eef0f6; }
@media (prefers-color-scheme: dark) {
  body { color: #dde3f0; background: #0f1320; } a { color: #8fb0ff; }
  code, th { background: #1e2438; } pre { background: #161b2c; } th, td { border-color: #2c3450; }
}
"""


def slugify(text: str, seen: dict[str, int]) -> str:
    """A heading's anchor as Python-Markdown's `toc` makes it (`Time` -> `time`), repeats numbered `_1`."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    slug = re.sub(r"[-\s]+", "-", value)
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}_{count}"


def _href(from_slug: str, target: str) -> str:
    found = docs.resolve_link(from_slug, target)
    if found is None:
        image = docs.image_name(from_slug, target)  # the shipped file itself: the pages are written elsewhere
        return (docs.ROOT / "images" / image).as_uri() if image else target
    slug, anchor = found
    return f"{slug}.html" + (f"#{anchor}" if anchor else "")


def inline(text: str, from_slug: str) -> str:
    """One line or paragraph of Markdown as HTML: code spans, links, strong and emphasis; the rest escaped."""
    kept: list[str] = []
    marked = _inline(text, from_slug, kept)
    while "\x00" in marked:  # a link's label may hold code spans: restore until none is left
        marked = re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], marked)
    return marked


def _inline(text: str, from_slug: str, kept: list[str]) -> str:
    """`inline` with code spans and links replaced by markers into `kept` (HTML already made)."""

    def keep(html_text: str) -> str:
        kept.append(html_text)
        return f"\x00{len(kept) - 1}\x00"

    text = _CODE.sub(lambda m: keep(f"<code>{html.escape(m.group(2).strip())}</code>"), text)

    def link(m: re.Match[str]) -> str:
        href = html.escape(_href(from_slug, m.group(3)), quote=True)
        label = _inline(m.group(2), from_slug, kept) or href  # an image becomes a link to its file
        return keep(f'<a href="{href}">{label}</a>')

    text = _LINK.sub(link, text)
    text = html.escape(text, quote=False)
    text = _STRONG.sub(r"<strong>\1</strong>", text)
    return _EM.sub(lambda m: f"<em>{m.group(1) or m.group(2)}</em>", text)


def _cells(line: str) -> list[str]:
    """A table row's cells, split on the pipes outside code spans (`\\|` is a pipe in a cell)."""
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    cells, current, ticks = [], "", 0
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\" and line[i + 1:i + 2] == "|":
            current += "|"
            i += 2
            continue
        if char == "`":
            ticks ^= 1
        if char == "|" and not ticks:
            cells.append(current.strip())
            current = ""
        else:
            current += char
        i += 1
    cells.append(current.strip())
    return cells


def _blocks(lines: list[str], from_slug: str) -> Iterator[str]:
    seen: dict[str, int] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            end = i + 1
            while end < len(lines) and not lines[end].startswith(fence.group(1)):
                end += 1
            lang = f' class="language-{fence.group(2)}"' if fence.group(2) else ""
            yield f"<pre><code{lang}>{html.escape(chr(10).join(lines[i + 1:end]))}</code></pre>"
            i = end + 1
            continue
        heading = _HEADING.match(line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2)
            anchor = slugify(re.sub(r"[`*]|(?<!\w)_|_(?!\w)", "", _LINK.sub(r"\2", title)), seen)
            yield f'<h{level} id="{anchor}">{inline(title, from_slug)}</h{level}>'
            i += 1
            continue
        if line.lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            head = "".join(f"<th>{inline(c, from_slug)}</th>" for c in _cells(line))
            rows = []
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append("<tr>" + "".join(f"<td>{inline(c, from_slug)}</td>" for c in _cells(lines[i])) + "</tr>")
                i += 1
            table = f'<table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            yield f'<div class="table">{table}</div>'
            continue
        item = _ITEM.match(line)
        if item:
            i, block = _list(lines, i, from_slug)
            yield block
            continue
        para = [line.strip()]
        i += 1
        while i < len(lines) and lines[i].strip() and not _starts_block(lines, i):
            para.append(lines[i].strip())
            i += 1
        yield f"<p>{inline(' '.join(para), from_slug)}</p>"


def _starts_block(lines: list[str], i: int) -> bool:
    line = lines[i]
    return bool(_FENCE.match(line) or _HEADING.match(line) or _ITEM.match(line)
                or (line.lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1])))


def _list(lines: list[str], i: int, from_slug: str) -> tuple[int, str]:
    """The list starting at line i (items and their indented continuation lines); (next line, HTML)."""
    first = _ITEM.match(lines[i])
    assert first is not None
    ordered = first.group(2)[0].isdigit()
    start = int(first.group(2)[:-1]) if ordered else 1
    items: list[list[str]] = []
    while i < len(lines):
        item = _ITEM.match(lines[i])
        if item and item.group(2)[0].isdigit() == ordered:
            items.append([item.group(3)])
        elif lines[i].strip() and lines[i].startswith((" ", "\t")) and items:
            items[-1].append(lines[i].strip())
        elif not lines[i].strip() and i + 1 < len(lines) and (
                _ITEM.match(lines[i + 1]) or lines[i + 1].startswith((" ", "\t"))) and items:
            pass  # a blank line inside the list
        else:
            break
        i += 1
    tag = "ol" if ordered else "ul"
    attrs = f' start="{start}"' if ordered and start != 1 else ""
    body = "".join(f"<li>{inline(' '.join(parts), from_slug)}</li>" for parts in items)
    return i, f"<{tag}{attrs}>{body}</{tag}>"


def body(slug: str) -> str:
    """The HTML of document `slug` (without the page around it)."""
    return "\n".join(_blocks(docs.text(slug).splitlines(), slug))


def page(slug: str | None) -> str:
    """A whole self-contained page: the topics' bar, then document `slug` (None: the list of topics)."""
    topics = docs.topics()
    bar = "".join(f'<a href="{t.slug}.html"{" class=here" if t.slug == slug else ""}>{html.escape(t.title)}</a>'
                  for t in topics)
    if slug is None:
        title = "Armada documentation"
        content = "<h1>Armada documentation</h1><ul>" + "".join(
            f'<li><a href="{t.slug}.html">{html.escape(t.title)}</a> (<code>armada docs {t.slug}</code>)</li>'
            for t in topics) + "</ul>"
    else:
        title = docs.topic(slug).title
        content = body(slug)
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)} - Armada</title><style>{STYLE}</style></head>\n"
            f'<body><nav><a href="index.html">Armada docs</a>{bar}</nav>\n<main>\n{content}\n</main></body></html>\n')


def write_all(folder: Path) -> dict[str, Path]:
    """Write index.html and SLUG.html for every document into `folder` (created); {slug or "index": path}."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {"index": folder / "index.html"}
    written["index"].write_text(page(None), encoding="utf-8")
    for t in docs.topics():
        written[t.slug] = folder / f"{t.slug}.html"
        written[t.slug].write_text(page(t.slug), encoding="utf-8")
    return written
