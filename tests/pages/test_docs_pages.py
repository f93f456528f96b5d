"""/docs/: the SDK's shipped documents on the site, with links between them, contents and anchors;
the old /rules/ pages redirect there."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from armada import docs
from armada_web.pages import docs as site_docs

pytestmark = pytest.mark.django_db


class Page(HTMLParser):
    """The ids, links and list items of an HTML page."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.ordered_items = 0
        self._ol = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        if tag == "ol":
            self._ol += 1
        if tag == "li" and self._ol:
            self.ordered_items += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "ol":
            self._ol -= 1


def get(client, url: str) -> Page:
    response = client.get(url)
    assert response.status_code == 200, url
    return Page(response.content.decode())


def test_the_index_lists_every_document_and_the_quick_start(client):
    html = client.get("/docs/").content.decode()
    for topic in docs.topics():
        assert f'href="/docs/{topic.slug}/"' in html and f"armada docs {topic.slug}" in html
    assert 'id="quick-start"' in html and "armada login http://testserver" in html
    site_topics = site_docs.site_topics()
    assert [t.slug for t in site_topics] == ["seasons", "ratings"]  # the site's own documents, not the SDK's
    for slug in ("seasons", "ratings"):
        assert f'href="/docs/{slug}/"' in html and f"armada docs {slug}" not in html


def test_every_document_renders_with_contents_anchors_and_links_that_resolve(client):
    pages = {t.slug: get(client, f"/docs/{t.slug}/") for t in [*docs.topics(), *site_docs.site_topics()]}
    for slug, page in pages.items():
        for href in page.links:
            if href.startswith("#"):
                assert href[1:] in page.ids, (slug, href)
            elif href.startswith("/docs/") and href != "/docs/":
                target, _, anchor = href[len("/docs/"):].partition("/")
                assert target in pages, (slug, href)
                if anchor.startswith("#"):
                    assert anchor[1:] in pages[target].ids, (slug, href)
            assert not re.search(r"\.md(#|$)", href), (slug, href)  # every link between documents was resolved
    protocol = pages["protocol"]
    assert "time" in protocol.ids  # galaxy.md links to protocol.md#time
    galaxy = client.get("/docs/galaxy/").content.decode()
    assert 'class="doc-toc' in galaxy and 'href="#the-rules-in-short"' in galaxy
    assert 'class="anchor" href="#the-rules-in-short"' in galaxy  # each heading links to itself
    assert 'href="/docs/protocol/#time"' in galaxy or 'href="/docs/protocol/"' in galaxy
    assert 'aria-current="page">Galaxy' in galaxy


def test_a_list_right_under_a_paragraph_is_a_list():
    """galaxy.md's turn (`**A turn.** ...` then `1. Scout`) is nine list items, not one paragraph."""
    found = site_docs.page("galaxy")
    assert found is not None
    assert Page(str(found.html)).ordered_items >= 9
    assert not re.search(r"<p>[^<]*\n\d+\. ", str(found.html))
    assert "<ol>\n<li>a</li>" in str(site_docs.render_markdown("x\n1. a\n2. b"))
    assert "<ol>" not in str(site_docs.render_markdown("```\nx\n1. a\n```"))


def test_the_old_rules_pages_redirect_to_the_docs(client):
    for slug in ("galaxy", "mothership", "protocol"):
        response = client.get(f"/rules/{slug}/")
        assert response.status_code == 301 and response["Location"] == f"/docs/{slug}/"
    assert client.get("/rules/secret/").status_code == 404
    assert client.get("/docs/secret/").status_code == 404


def test_a_documents_html_is_escaped_and_its_links_resolved_from_where_it_is():
    html = str(site_docs.render_markdown("# Evil <script>x</script>\n\n<img src=x onerror=alert(1)>\n\n"
                                         "[p](../protocol.md#time) [s](galaxy-schema.md) [w](https://example.org/a.md)",
                                         "galaxy"))
    assert "<script" not in html and "<img" not in html and "&lt;img" in html
    assert 'href="/docs/protocol/#time"' in html and 'href="/docs/galaxy-schema/"' in html
    assert 'href="https://example.org/a.md"' in html


def test_a_section_has_the_same_anchor_on_the_site_and_offline():
    """`armada docs TOPIC --open` (armada.docs.render) and /docs/TOPIC/ name every heading alike, so a
    link to a section works in both."""
    from armada.docs import render

    heading = re.compile(r'<h[1-6][^>]* id="([^"]+)"')
    for topic in docs.topics():
        found = site_docs.page(topic.slug)
        assert found is not None
        site = heading.findall(str(found.head) + str(found.html))
        assert site == heading.findall(render.body(topic.slug)), topic.slug
        assert len(site) >= 3


def test_the_sites_own_document_renders_and_the_old_address_redirects(client):
    html = client.get("/docs/seasons/").content.decode()
    assert 'id="doc-seasons"' in html and "Seasons, finals and private events" in html
    assert "armada docs seasons" not in html  # not in the SDK: no offline command offered
    assert 'class="anchor" href="#the-finals-galaxy"' in html
    response = client.get("/rules/seasons/")
    assert response.status_code == 301 and response["Location"] == "/docs/seasons/"


def test_the_sites_docs_give_its_own_address_where_the_sdks_have_a_placeholder(client):
    """docs/imitation.md and rl.md say `pip install "armada[learn] @ https://your-armada-site.example/sdk/..."`
    (read offline too); on the site they show the site's own address, so the line works as copied."""
    answer = client.get("/docs/imitation/")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "your-armada-site.example" not in html
    assert "http://testserver/sdk/armada-" in html and "armada login http://testserver " in html
    assert "your-armada-site.example" not in client.get("/docs/rl/").content.decode()


def test_the_viewer_document_is_on_the_site_with_its_screenshots(client):
    """docs/index.md lists viewer.md for competitors too: /docs/viewer/ shows it, its images served
    from the SDK's files (a trial found /docs/viewer/ a 404)."""
    from django.contrib.staticfiles import finders

    html = client.get("/docs/viewer/").content.decode()
    assert "<h1" in html and "The replay viewer" in html
    sources = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert sources == [f"/static/armada/docs-images/viewer-{game}.png" for game in ("galaxy", "mothership")]
    for src in sources:
        assert finders.find(src.removeprefix("/static/")), src
    assert 'href="/docs/viewer/"' in client.get("/docs/").content.decode()
    assert 'href="/docs/replay-format/"' in html


def test_the_cli_document_sends_a_competitor_to_pages_they_can_open(client):
    """The SDK's cli.md is read offline and on the site, without the repository: no "see the
    repository's docs/site.md"; the site's own pages instead."""
    html = client.get("/docs/cli/").content.decode()
    assert "docs/site.md" not in html and "in the repository" not in html
    assert 'href="/docs/viewer/"' in html and 'href="/docs/bots-environment/#model-files"' in html
    assert "http://testserver/api/docs/" in html
