"""The link checker: a crawl of the live site from / (signed out, then signed in as a bot's owner)
over a seeded site (bots of both games, matches, a challenge, the league, users, versions) follows
every internal link, stylesheet, script and GET form, and fails on any that does not answer 200
(a redirect too: a page links to where things are) or whose #anchor is not on the page it names."""

from __future__ import annotations

from collections import deque
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
import requests

from tests.pages.browser import PASSWORD

pytestmark = pytest.mark.slow
#: What no page may link to because it is only for staff, or only reached by a form's POST.
SKIP = ("/admin/", "/accounts/logout/")
LIMIT = 600


class Links(HTMLParser):
    """The links of a page (a href, link href, script/img src, GET form actions) and its ids."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if found.get("id"):
            self.ids.add(found["id"])
        if (tag == "a" and "href" in found) or (tag == "link" and found.get("href")):
            self.links.append(found["href"])
        elif tag in ("script", "img") and found.get("src"):
            self.links.append(found["src"])
        elif tag == "form" and found.get("method", "get").lower() == "get":
            self.links.append(found.get("action") or "?")
        elif found.get("data-armada-src"):
            self.links.append(found["data-armada-src"])


def crawl(session: requests.Session, origin: str) -> tuple[dict[str, int], list[str]]:
    """Every page reachable from / (status by URL) and the problems found."""
    seen: dict[str, int] = {}
    ids: dict[str, set[str]] = {}
    anchors: list[tuple[str, str, str]] = []  # (from page, target page, fragment)
    problems: list[str] = []
    queue = deque([(origin + "/", "(start)")])
    while queue and len(seen) < LIMIT:
        url, source = queue.popleft()
        if url in seen:
            continue
        response = session.get(url, allow_redirects=False, timeout=30)
        seen[url] = response.status_code
        if response.status_code != 200:
            problems.append(f"{url} (linked from {source}) answered {response.status_code} "
                            f"{response.headers.get('Location', '')}")
            continue
        if not response.headers.get("Content-Type", "").startswith("text/html"):
            continue
        page = Links()
        page.feed(response.text)
        ids[url] = page.ids
        for href in page.links:
            target, fragment = urldefrag(urljoin(url, href))
            parts = urlsplit(target)
            if f"{parts.scheme}://{parts.netloc}" != origin or parts.path.startswith(SKIP):
                continue
            if fragment and not fragment.startswith("t="):  # #t=N is the viewer's position, not an anchor
                anchors.append((url, target, fragment))
            queue.append((target, url))
    for source, target, fragment in anchors:
        if target in ids and fragment not in ids[target]:
            problems.append(f"{target}#{fragment} (linked from {source}): no such anchor on the page")
    return seen, problems


def logged_in(origin: str, username: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{origin}/accounts/login/", timeout=30)
    done = session.post(f"{origin}/accounts/login/", data={
        "username": username, "password": PASSWORD, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        headers={"Referer": f"{origin}/accounts/login/"}, allow_redirects=False, timeout=30)
    assert done.status_code == 302, done.text[:500]
    return session


def test_every_internal_link_answers_200(transactional_db, live_server, arena, settings, tmp_path):
    from armada_web.ladder.challenges import challenge

    settings.ARMADA_SDK_DIR = tmp_path / "sdk"
    (tmp_path / "sdk").mkdir()
    (tmp_path / "sdk" / "armada-0.1.0-py3-none-any.whl").write_bytes(b"PK")
    settings.ARMADA = settings.ARMADA.with_(challenges_queue=settings.ARMADA.validation_queue)
    challenge(user=arena.alice, bot="alpha", opponent="beta")
    origin = live_server.url
    anonymous, problems = crawl(requests.Session(), origin)
    assert problems == []
    owner, problems = crawl(logged_in(origin, "alice"), origin)
    assert problems == []
    for path in ("/", "/docs/", "/docs/galaxy/", "/docs/decisions/", "/sdk/", "/ladder/galaxy/", "/ladder/mothership/",
                 f"/matches/{arena.match.pk}/", f"/bots/{arena.alpha.bot_id}/", f"/bots/{arena.race_a.bot_id}/",
                 f"/ladder/mothership/{arena.race_a.bot_id}/", "/users/alice/",
                 f"/bots/{arena.alpha.bot_id}/versions/1/",
                 f"/api/matches/{arena.match.pk}/replay/", "/api/docs/", "/sdk/armada-0.1.0-py3-none-any.whl"):
        assert origin + path in anonymous, f"the crawl never reached {path}"
    for path in ("/my/bots/", "/accounts/profile/", f"/bots/{arena.alpha.bot_id}/versions/1/source/",
                 f"/bots/{arena.alpha.bot_id}/delete/"):
        assert origin + path in owner, f"the signed-in crawl never reached {path}"
    assert len(anonymous) < LIMIT and len(owner) < LIMIT
