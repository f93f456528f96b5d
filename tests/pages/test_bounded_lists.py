"""Every page and API list runs a bounded number of queries whatever the data's size: the same
bound on a seeded site of two sizes (tests/support/scale_data.py), for the ladder (first, last and a
searched page), the league, a busy bot's page (chart, head-to-head, recent matches, versions),
the match browser and API list with their filters and cursors, a user's page and bots, a team's
page, the home page, a match page, the bots API and the matchmaker's tick."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.scale_data import SIZES, seed

pytestmark = pytest.mark.django_db
#: A tick's queries: a few for the tick, about 20 for each match it makes (seeds, neighbours, the
#: match and its seats, both bots' tallies, both ratings' last game; savepoints count too).
PER_TICK, PER_MATCH = 6, 21


def deep_cursor(client, url: str, depth: int) -> str:
    """The URL `depth` entries into an API list, by following `next` as a client does."""
    seen = 0
    while seen < depth:
        page = client.get(url).json()
        seen += len(page["results"])
        assert page["next"], (url, seen)
        url = page["next"].split("testserver", 1)[-1]
    return url


@pytest.mark.parametrize("size", list(SIZES))
def test_pages_and_lists_run_the_same_queries_at_any_size(size, client, django_assert_max_num_queries):
    from armada_web.ladder.queries import ladder
    from armada_web.matches.queries import head_to_head

    site = seed(size)
    bot, rival, owner = site.busiest.pk, site.opponent.pk, site.owner.username
    last = -(-ladder("galaxy").count() // 50)
    rivals = -(-head_to_head(bot).count() // 20)
    api = APIClient()
    deep = deep_cursor(api, f"/api/matches/?bot={bot}&page_size=20", 100)
    pages = {
        "/": 8, "/ladder/galaxy/": 6, f"/ladder/galaxy/?page={last}": 6, "/ladder/galaxy/?q=comet": 7,
        # the bot page: its state, place, kept record, paged versions with their records, faults, two
        # versions compared, the challenge offer, the chart, recent matches, head-to-head, its season
        # placements (2) and the estimates of its next ranked game and of its settled rating (up to 15: counts
        # through the waiting index and over the last hour's matches and rating changes, the provisional
        # versions' spans in the window, the latest ranked matches' length, the workers a season's finals
        # claim (none free: no estimate), its neighbours in mu on each side and the recent games that
        # say how often it is chosen as an opponent, ladder.logic.estimates)
        "/ladder/mothership/": 6, f"/bots/{bot}/": 42, f"/bots/{bot}/?opponents={rivals}&versions=1": 42,
        "/matches/": 6, f"/matches/?bot={bot}&opponent={rival}": 8, f"/matches/?bot={bot}&result=win&kind=ranked": 7,
        f"/matches/?game=galaxy&status=finished&cursor=o{site.match.pk}": 6, f"/users/{owner}/": 20,
        f"/matches/{site.match.pk}/": 6,
        # a team's page: the team, its bots' page (ids, rows), their places (rank and rating per rated game,
        # the league), their seasons (2), members and history (the session's user: none here)
        f"/teams/{site.busiest.team_id}/": 12,
    }
    for url, bound in pages.items():
        with django_assert_max_num_queries(bound, info=url):
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    lists = {
        "/api/ladder/galaxy/": 5, f"/api/ladder/galaxy/?page={last}": 5, "/api/ladder/mothership/": 5,
        "/api/matches/": 5, "/api/matches/?game=galaxy": 5, f"/api/matches/?bot={bot}&version=1": 7,
        f"/api/matches/?bot={site.busiest.name}&opponent={site.opponent.name}&result=loss": 7, deep: 6,
        # a bot's detail: the bot page's estimate of its next ranked game too (up to 18 more, as the page)
        "/api/matches/?page=3": 5, "/api/bots/": 5, f"/api/bots/{bot}/": 24, f"/api/bots/{bot}/versions/": 6,
    }
    for url, bound in lists.items():
        with django_assert_max_num_queries(bound):
            response = api.get(url)
        assert response.status_code == 200, (url, response.json())
    client.force_login(site.owner)
    with django_assert_max_num_queries(9):
        assert client.get("/my/bots/").status_code == 200


@pytest.mark.parametrize("size", list(SIZES))
def test_a_matchmaker_tick_runs_the_same_queries_at_any_size(size, django_assert_max_num_queries):
    from armada_web.ladder.matchmaking import fill_queue, in_flight

    seed(size)
    workers = (4 + in_flight() + 1) // 2
    with django_assert_max_num_queries(PER_TICK + PER_MATCH * 4):  # whatever the ladder's size
        made = fill_queue(workers=workers)
    assert len(made) >= 3
