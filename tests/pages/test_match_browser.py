"""The match browser (/matches/) and /api/matches/: the same filters (game, bot, opponent, version,
kind, result, status; bots by id or name), newest first, cursor pages both ways that neither skip
nor repeat a match, links to each match's viewer, and a clear 400 for a filter that cannot apply."""

from __future__ import annotations

import html
import re

import pytest
from rest_framework.test import APIClient

from tests.support.scale_data import seed

pytestmark = pytest.mark.django_db


def api_ids(api, query: dict[str, str]) -> list[int]:
    """Every match id of an API list, following `next` to the end."""
    found: list[int] = []
    url, params = "/api/matches/", {**query, "page_size": "37"}
    while url:
        page = api.get(url, params).json()
        found += [m["id"] for m in page["results"]]
        url, params = (page["next"].split("testserver", 1)[-1], None) if page["next"] else ("", None)
    return found


def test_filters_are_the_same_on_the_page_and_the_api(client):
    from armada_web.matches.models import Match, Participant

    site = seed("small")
    bot, rival = site.busiest, site.opponent
    api = APIClient()
    seats = Participant.objects.filter(bot=bot)
    expected = {
        (("bot", str(bot.pk)),): seats,
        (("bot", bot.name.upper()), ("opponent", rival.name)): seats.filter(opponent=rival),
        (("bot", str(bot.pk)), ("result", "win"), ("kind", "ranked")): seats.filter(result="win", match__kind="ranked"),
        (("bot", str(bot.pk)), ("version", "v1")): seats.filter(version__number=1),
        (("status", "queued"),): None, (("kind", "challenge"), ("game", "galaxy")): None,
    }
    for query, rows in expected.items():
        params = dict(query)
        if rows is None:
            wanted = list(Match.objects.filter(**params).order_by("-id").values_list("id", flat=True))
        else:
            wanted = list(rows.order_by("-match_id").values_list("match_id", flat=True))
        assert wanted, params
        assert api_ids(api, params) == wanted, params
        text = client.get("/matches/", params).content.decode()
        shown = [int(n) for n in re.findall(r'<td data-label="Match"><a href="/matches/(\d+)/">#', text)]
        assert shown == wanted[:50], params


def test_cursor_pages_go_both_ways_without_skipping_and_link_to_the_viewer(client):
    from armada_web.matches.models import Match

    seed("small")
    every = list(Match.objects.order_by("-id").values_list("id", flat=True))
    text = client.get("/matches/").content.decode()
    seen = []
    pages = []
    while True:
        seen += [int(n) for n in re.findall(r'<td data-label="Match"><a href="/matches/(\d+)/">#', text)]
        pages.append(text)
        older = re.search(r'<a href="\?([^"]+)" rel="next">older', text)
        if not older:
            break
        text = client.get("/matches/?" + older.group(1).replace("&amp;", "&")).content.decode()
    assert seen == every and len(pages) == -(-len(every) // 50)
    back = re.search(r'<a href="\?([^"]+)" rel="prev">', pages[-1])
    assert back
    previous = client.get("/matches/?" + back.group(1).replace("&amp;", "&")).content.decode()
    assert re.findall(r'"/matches/(\d+)/">#', previous) == re.findall(r'"/matches/(\d+)/">#', pages[-2])
    watched = Match.objects.exclude(replay="").values_list("id", flat=True)
    first_page = pages[0]
    for match_id in watched:
        if f'href="/matches/{match_id}/">#' in first_page:
            assert f'<a href="/matches/{match_id}/" class="watch">watch</a>' in first_page


def test_filters_that_cannot_apply_are_refused_with_a_message(client):
    site = seed("small")
    api = APIClient()
    refusals = {
        (("result", "win"),): "give bot too",
        (("bot", "no-such-bot"),): "no bot is named",
        (("bot", "999999"),): "no bot has id",
        (("bot", str(site.busiest.pk)), ("version", "77")): "has no version 77",
        (("bot", str(site.busiest.pk)), ("version", "one")): "version must be the bot's version number",
        (("kind", "friendly"),): "kind must be one of ranked, challenge",
        (("game", "chess"),): "game must be one of",
    }
    for query, message in refusals.items():
        response = api.get("/api/matches/", dict(query))
        assert response.status_code == 400 and message in response.json()["detail"], (query, response.json())
        page = client.get("/matches/", dict(query))
        assert page.status_code == 400, query
        text = html.unescape(page.content.decode())
        assert message in text or "Select a valid choice" in text, (query, text[-2000:])


def test_names_are_escaped(client, arena):
    from tests.pages.data import EVIL, EVIL_RACE
    page = client.get("/matches/", {"bot": arena.alpha.bot_id}).content.decode()
    assert f'href="/matches/{arena.match.pk}/" class="watch"' in page
    assert EVIL not in page and EVIL_RACE not in page
    page = client.get("/matches/", {"bot": "<script>alert(1)</script>"}).content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_league_game_with_no_match_points_to_its_league(client):
    """A competitor's trial: /matches/?game=mothership said only "No match fits these filters"."""
    page = client.get("/matches/", {"game": "mothership"}).content.decode()
    assert "races fight in its league, not in matches" in page and 'href="/ladder/mothership/"' in page
    assert "fight in its league" not in client.get("/matches/", {"game": "galaxy"}).content.decode()
