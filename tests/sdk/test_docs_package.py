"""The documents shipped in the SDK (armada.docs): one copy, linked from docs/, links that resolve in both places,
the tiny API, the offline HTML pages and `armada docs`."""

from __future__ import annotations

import doctest
import re
import webbrowser
from pathlib import Path

import pytest

import armada.docs
from armada import docs
from armada.cli.main import main
from armada.docs import render

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def links(path: Path) -> list[str]:
    """The link targets of a Markdown file, outside fenced code."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return _LINK.findall(re.sub(r"`[^`]*`", "", text))


def test_each_document_has_one_copy_that_docs_links_to() -> None:
    for topic in docs.topics():
        assert topic.path.is_file() and not topic.path.is_symlink()
        in_repo = ROOT / "docs" / topic.name
        assert in_repo.is_symlink(), f"docs/{topic.name} should link to the SDK's copy"
        assert in_repo.resolve() == topic.path.resolve()
    shipped = {p.relative_to(docs.ROOT).as_posix() for p in docs.ROOT.rglob("*.md")}
    assert shipped == set(docs.FILES.values())


def test_links_between_documents_resolve_in_the_package_and_the_repository() -> None:
    for topic in docs.topics():
        for href in links(topic.path):
            if "://" in href:
                continue
            if docs.image_name(topic.slug, href) is not None:  # a shipped image (viewer.md's screenshots)
                assert (ROOT / "docs" / topic.name).parent.joinpath(href).resolve().is_file()
                continue
            found = docs.resolve_link(topic.slug, href)
            assert found is not None, f"{topic.name} links {href}, which is no shipped document"
            slug, anchor = found
            target = href.partition("#")[0]
            if target:  # the same relative link works from docs/ in the repository
                assert (ROOT / "docs" / topic.name).parent.joinpath(target).resolve() == docs.topic(slug).path
            if anchor:
                assert f'id="{anchor}"' in render.body(slug), f"{topic.name}: no heading #{anchor} in {slug}"


@pytest.mark.parametrize("page", ["README.md", "docs/index.md", "docs/site-decisions.md"])
def test_repository_pages_link_to_files_that_exist(page: str) -> None:
    path = ROOT / page
    for href in links(path):
        if "://" not in href and not href.startswith("#"):
            assert (path.parent / href.partition("#")[0]).exists(), f"{page} links {href}"


def test_the_api() -> None:
    assert doctest.testmod(armada.docs).failed == 0
    slugs = [t.slug for t in docs.topics()]
    assert slugs == list(docs.FILES)
    assert {"galaxy", "mothership", "galaxy-schema", "protocol", "bot-library", "bots-environment", "cli",
            "replay-format", "viewer", "decisions", "rl", "imitation"} == set(slugs)
    assert all(t.title and "`" not in t.title for t in docs.topics())
    slug, title, path = docs.topics()[0]
    assert (slug, path.name) == ("galaxy", "galaxy.md") and title.startswith("Galaxy")
    assert docs.topic("games/mothership.md").slug == "mothership"
    assert docs.text("decisions").startswith("# Decisions that affect play")
    with pytest.raises(docs.UnknownTopic, match="no document 'site'; the topics are: galaxy, "):
        docs.text("site")
    assert docs.resolve_link("mothership", "galaxy.md#map") == ("galaxy", "map")
    assert docs.resolve_link("protocol", "#time") == ("protocol", "time")
    assert docs.resolve_link("protocol", "sandbox.md") is None
    assert docs.resolve_link("protocol", "https://example.org/protocol.md") is None


def test_play_decisions_ship_and_the_sites_stay_out() -> None:
    play = docs.text("decisions")
    assert {"D-MD-1", "D-GX-8", "D-R-13"} <= set(re.findall(r"D-[A-Z]+-\d+", play))
    assert "D-S-" not in play.replace("D-S-n", "")
    site = (ROOT / "docs" / "site-decisions.md").read_text(encoding="utf-8")
    numbers = re.findall(r"\*\*D-S-(\d+)", site)
    assert len(numbers) >= 6 and numbers == [str(n) for n in range(1, len(numbers) + 1)]  # each once, in order


def test_html_escapes_and_renders_the_blocks_used() -> None:
    html = render.inline("a <b>&amp; `x<y>` [**see**](protocol.md#time) _it_", "decisions")
    assert html == ('a &lt;b&gt;&amp;amp; <code>x&lt;y&gt;</code> <a href="protocol.html#time">'
                    "<strong>see</strong></a> <em>it</em>")
    galaxy = render.page("galaxy")
    assert galaxy.startswith("<!doctype html>") and "<script" not in galaxy
    assert '<ol><li><em>Scout</em>:' in galaxy and "<table>" in galaxy and "<pre><code" in galaxy
    assert 'href="galaxy-schema.html"' in galaxy and 'href="protocol.html"' in galaxy
    assert '<h2 id="time">Time</h2>' in render.page("protocol")
    assert render.slugify("The `orders` request and your reply", {}) == "the-orders-request-and-your-reply"


def test_armada_docs_lists_and_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1:] == [f"  {t.slug:<16}  {t.title}" for t in docs.topics()]
    assert main(["docs", "bots-environment"]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "bots-environment.md").read_text(encoding="utf-8")
    assert main(["docs", "chess"]) == 2
    assert capsys.readouterr().err.startswith("armada: error: no document 'chess'; the topics are: galaxy,")
    assert main(["docs", "--out", "x"]) == 2
    assert "--out goes with --open" in capsys.readouterr().err


@pytest.mark.parametrize("opens", [True, False])
def test_armada_docs_open(opens: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: asked.append(url) or opens)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["docs", "protocol", "--open"]) == 0
    captured = capsys.readouterr()
    page = (tmp_path / "cache" / "armada" / f"docs-{armada.__version__}" / "protocol.html").resolve()
    assert captured.out == f"docs written to {page}\n"
    assert asked == [page.as_uri()]
    assert captured.err == ("" if opens else f"armada: no browser could be opened here; open {page} in one\n")
    assert sorted(p.name for p in page.parent.iterdir()) == sorted(["index.html"] + [
        f"{t.slug}.html" for t in docs.topics()])


def test_the_offline_viewer_page_shows_the_shipped_screenshots() -> None:
    """`armada docs viewer --open` writes pages elsewhere: its images point at the package's files."""
    page = render.body("viewer")
    shot = (docs.ROOT / "images" / "viewer-galaxy.png")
    assert shot.is_file() and f'href="{shot.as_uri()}"' in page


def test_a_site_only_document_is_named_as_one(capsys):
    """A trial: `armada docs ratings` said only "no document 'ratings'", though the site has /docs/ratings/."""
    for slug in docs.SITE_ONLY:
        assert main(["docs", slug]) == 2
        err = capsys.readouterr().err
        assert f"'{slug}' is one of the site's own documents" in err and f"/docs/{slug}/" in err
