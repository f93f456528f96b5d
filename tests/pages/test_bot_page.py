"""The bot page tells the truth: why a bot does not play and what to do, its last faults, its place
on its table with a link to its row, a league race's battles, each version's games and win rate,
two versions compared (counted in the database), and the version page's words."""

from __future__ import annotations

import re

import pytest

from armada_web.bots.models import Bot, BotVersion
from armada_web.ladder.models import Rating
from armada_web.matches import queries
from tests.pages.data import recorded_match

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-42"


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def second_version(valid_version, owner, first):
    """A second valid version of `first`'s bot (v2, active)."""
    from armada_web.bots import services
    from armada_web.bots.activation import refresh_active

    version = services.upload_version(bot=first.bot, user=owner, filename="main.py", data=b"print('v2')\n")
    BotVersion.objects.filter(pk=version.pk).update(status="valid")
    refresh_active(bot=first.bot)
    return BotVersion.objects.get(pk=version.pk)


def test_a_benched_bot_says_so_with_the_reason_and_what_to_do(client, arena):
    Rating.objects.filter(version=arena.alpha).update(
        benched=True, benched_reason="benched: its last 5 ranked games ended by its own fault (the latest, match 9: "
                                     "crashed: exited with code 1; stopped before answering scout (id 7, turn 4)); "
                                     "upload a new version to play again")
    html = page(client, f"/bots/{arena.alpha.bot_id}/")
    state = html[html.index('id="play-state"'):]
    assert 'data-kind="benched"' in html
    assert "<strong>Benched: it plays no ranked matches</strong>: its last 5 ranked games ended by" in state
    assert state[:state.index("</div>")].lower().count("benched") == 2  # data-kind, and once in words
    assert "scout (id 7, turn 4)" in state and "upload a new version to play again" in state
    assert 'class="status status-benched">benched</span>' in html
    assert "valid, active" not in html
    ladder = page(client, "/ladder/galaxy/")
    assert 'title="its last 5 ranked games ended by its own fault' in ladder and 'title="benched:' not in ladder


@pytest.mark.parametrize(("change", "kind", "words"), [
    ({"disabled": True, "disabled_reason": "it spammed its log"}, "disabled", "Disabled by staff: it spammed its log."),
    ({"retired": "2025-01-02T00:00:00Z"}, "retired", "create a new bot to play again"),
    ({"active_version": None}, "no-valid-version", "Upload a version that passes its validation game"),
])
def test_a_bot_that_does_not_play_says_why(client, arena, change, kind, words):
    Bot.objects.filter(pk=arena.alpha.bot_id).update(**change)
    html = page(client, f"/bots/{arena.alpha.bot_id}/")
    assert f'data-kind="{kind}"' in html and words in html
    assert 'id="table-row"' not in html  # not on the ladder


def test_a_bot_being_validated_says_so(client, arena):
    from armada_web.bots import services

    Bot.objects.filter(pk=arena.alpha.bot_id).update(active_version=None)
    bot = Bot.objects.get(pk=arena.alpha.bot_id)
    services.upload_version(bot=bot, user=arena.alice, filename="main.py", data=b"print(2)\n")
    html = page(client, f"/bots/{bot.pk}/")
    assert 'data-kind="validating"' in html and "Version 2 is being validated." in html


def test_the_last_faults_show_status_and_detail_with_the_turn(client, arena):
    for k in range(7):
        recorded_match(arena.alpha, arena.beta, 2, statuses=("timeout", "ok"), minutes_ago=10 + k,
                       details=(f"no reply to command (id {2 * k + 2}, turn {k + 1}) within its limit", ""))
    newest = recorded_match(arena.alpha, arena.beta, 2, statuses=("crashed", "ok"),
                            details=("exited with code 1; stopped before answering scout (id 9, turn 5)", ""))
    html = page(client, f"/bots/{arena.alpha.bot_id}/")
    faults = html[html.index('id="fault-list"'):html.index("</table>", html.index('id="fault-list"'))]
    assert faults.count("<tr>") == 1 + 5  # the header, then the latest five
    assert faults.index(f"#{newest.pk}<") < faults.index("timeout")
    assert "crashed" in faults and "stopped before answering scout (id 9, turn 5)" in faults
    assert "30 turns completed" in faults


def test_rank_and_score_link_to_the_highlighted_row_of_the_right_page(client, arena, monkeypatch):
    monkeypatch.setattr("armada_web.pages.bot_views.PER_PAGE", 1)
    html = page(client, f"/bots/{arena.beta.bot_id}/")
    link = re.search(r'<a href="([^"]+)" id="table-row">#(\d+)</a>, score ([-\d.]+)', html)
    assert link is not None
    assert link.group(1) == f"/ladder/galaxy/?page=2#bot-{arena.beta.bot_id}" and link.group(2) == "2"
    assert link.group(3) == "-1.00"
    monkeypatch.setattr("armada_web.pages.ladder_views.PER_PAGE", 1)
    ladder = page(client, "/ladder/galaxy/?page=2")
    assert f'<tr id="bot-{arena.beta.bot_id}">' in ladder  # the row the link's fragment highlights (tr:target)


def test_a_league_race_shows_its_line_and_battles_with_links(client, arena):
    leader, other = arena.race_b, arena.race_a  # glass leads the league (the fixture's orders)
    html = page(client, f"/bots/{leader.bot_id}/")
    assert "No matches yet" not in html and "Recent matches" not in html
    assert re.search(r'id="table-row">#1</a>, 2 points \(1/0/0 W/D/L', html)
    assert f'href="/ladder/mothership/?page=1#bot-{leader.bot_id}"' in html
    assert f'href="/ladder/mothership/{leader.bot_id}/{other.bot_id}/"' in html  # watch the battle
    assert f'href="/ladder/mothership/{other.bot_id}/"' in html
    race = page(client, f"/ladder/mothership/{leader.bot_id}/")
    assert f'href="/ladder/mothership/?page=1#bot-{leader.bot_id}">position 1</a>' in race
    assert f'<tr id="bot-{leader.bot_id}">' in page(client, "/ladder/mothership/")
    # two races of one name: the battle names each bot beside it (a new competitor's trial)
    from armada_web.bots.models import BotVersion

    BotVersion.objects.filter(pk__in=[leader.pk, other.pk]).update(race_name="Twin Fleet")
    battle = page(client, f"/ladder/mothership/{leader.bot_id}/{other.bot_id}/")
    names = [BotVersion.objects.get(pk=v.pk).bot.name for v in (leader, other)]
    assert f"<title>Twin Fleet ({names[0]}) vs Twin Fleet ({names[1]}) · Armada</title>" in battle
    assert f'<span class="muted">({names[1]})</span>' in page(client, "/")  # the home page's league list


def test_each_version_shows_its_games_and_results(client, arena, valid_version):
    from armada_web.ladder.models import Rating

    v2 = second_version(valid_version, arena.alice, arena.alpha)
    for winner in (1, 1, 1, 2):
        recorded_match(v2, arena.beta, winner)
    # a rated game's versions show their ratings' kept counts (what the ranked matches recorded)
    Rating.objects.update_or_create(version=v2, defaults={"game": "galaxy", "mu": 25.0, "sigma": 8.0, "games": 4,
                                                          "wins": 2, "draws": 1, "losses": 1})
    html = page(client, f"/bots/{arena.alpha.bot_id}/")
    rows = html[html.index('id="versions"'):html.index("</table>", html.index('id="versions"'))]
    assert re.search(r'v2</a> <strong>active</strong>.*?data-label="Games" class="num">4</td>\s*'
                     r'<td data-label="Won / drawn / lost" class="num">2 / 1 / 1</td>', rows, re.S)  # draws shown
    v1 = Rating.objects.filter(version=arena.alpha).values_list("games", flat=True).first() or 0
    assert re.search(rf'v1</a>.*?data-label="Games" class="num">{v1}</td>', rows, re.S)


def test_two_versions_compared_against_the_same_opponents(client, arena, valid_version, make_user):
    carol = make_user("carol")
    gamma = valid_version(carol, "gamma")
    v2 = second_version(valid_version, arena.alice, arena.alpha)
    recorded_match(arena.alpha, gamma, 2)
    recorded_match(arena.alpha, gamma, 2)
    recorded_match(v2, gamma, 1)
    recorded_match(gamma, v2, 2)
    recorded_match(v2, arena.beta, None)
    recorded_match(v2, arena.alpha, 1)  # the two versions met once: v2 won
    comparison = queries.compare_versions(arena.alpha.bot_id, 2, 1)
    rows = {name: (a.wins, a.draws, a.losses, b.wins, b.draws, b.losses) for name, _id, a, b in comparison.rows}
    beta = arena.match.participants.get(seat=1).result  # alpha (v1) against beta in the arena's match
    assert rows == {"gamma": (2, 0, 0, 0, 0, 2),
                    "beta": (0, 1, 0, int(beta == "win"), int(beta == "draw"), int(beta == "loss"))}
    assert list(rows) == ["gamma", "beta"]  # most games first; the versions' own match is not an opponent
    assert (comparison.direct.wins, comparison.direct.losses) == (1, 0)
    first, second = comparison.common()
    assert (first.wins, first.games) == (2, 3) and second.games == 3
    html = page(client, f"/bots/{arena.alpha.bot_id}/?a=2&b=1")
    assert "v2 against v1" in html and "Head to head, v2 against v1: 1/0/0 W/D/L." in html
    assert 'id="compare-problem"' not in html
    fallback = page(client, f"/bots/{arena.alpha.bot_id}/?a=x&b=9")
    assert '<h2 id="compare">v2 against v1</h2>' in fallback  # the default, and the page says why
    assert ("This bot has no version x (its versions: v1 to v2); showing v2 against v1 instead."
            in fallback)
    assert "no version 99 (its versions" in page(client, f"/bots/{arena.alpha.bot_id}/?a=99&b=1")
    assert "Choose two different versions" in page(client, f"/bots/{arena.alpha.bot_id}/?a=1&b=1")
    # a bot of one version: "its versions: v1 to v1" read badly (a crawl of the site)
    assert "This bot has no version 5 (its only version: v1)" in page(client, f"/bots/{arena.beta.bot_id}/?a=5&b=1")
    evil = page(client, f"/bots/{arena.alpha.bot_id}/?a=<script>&b=1")
    assert "no version &lt;script&gt;" in evil and "<script>&" not in evil
    from armada_web.bots import services

    services.upload_version(bot=arena.alpha.bot, user=arena.alice, filename="main.py", data=b"print('v3')\n")
    fresh = page(client, f"/bots/{arena.alpha.bot_id}/?a=3&b=1")  # just uploaded: nothing in common yet
    assert "v3 and v1 have met no opponent in common yet" in fresh and "won 0 of 0" not in fresh  # (a trial)


def test_records_and_comparisons_are_counted_in_the_database(arena, valid_version, django_assert_max_num_queries):
    v2 = second_version(valid_version, arena.alice, arena.alpha)
    for k in range(30):
        recorded_match(v2 if k % 2 else arena.alpha, arena.beta, 1 + k % 2)
    with django_assert_max_num_queries(2):
        records = queries.records(arena.alpha.bot_id)
    assert [(r.opponent, r.games) for r in records] == [("beta", 31)]
    with django_assert_max_num_queries(1):
        per_version = queries.version_records(arena.alpha.bot_id)
    assert per_version[v2.pk].games == 15
    with django_assert_max_num_queries(4):
        queries.compare_versions(arena.alpha.bot_id, 1, 2)


def test_the_version_page_says_what_valid_means_and_shows_race_names_only_where_the_game_has_them(client, arena):
    galaxy = page(client, f"/bots/{arena.alpha.bot_id}/versions/1/")
    assert "Race name" not in galaxy  # a Galaxy bot's init name is not a race (the fixture sets one)
    assert "Valid and active." in galaxy and "It plays ranked matches now" in galaxy
    mothership = page(client, f"/bots/{arena.race_b.bot_id}/versions/1/")
    assert "Race name: glass" in mothership and "It is in the league now" in mothership


def test_an_invalid_version_has_one_invalid_prefix(client, arena):
    BotVersion.objects.filter(pk=arena.race_b.pk).update(
        status="invalid", detail="invalid: fighters: 6 given, 5 expected (MD-1)")
    html = page(client, f"/bots/{arena.race_b.bot_id}/versions/1/")
    assert "<strong>Why it is invalid:</strong> fighters: 6 given, 5 expected (MD-1)" in html
    assert "invalid: invalid" not in html and "invalid: fighters" not in html
    # the command to try it (its team's): the bot's name is its folder's as `armada new` makes it; a
    # trial's folder was named otherwise, and the command as written failed: the page says what to put instead
    assert "if that folder is named otherwise, its name instead of" not in html  # anonymous
    client.force_login(arena.bob)
    owner_view = page(client, f"/bots/{arena.race_b.bot_id}/versions/1/")
    assert "if that folder is named otherwise, its name instead of" in owner_view


def test_a_crashed_version_shows_its_error_line_to_its_owners_only(client, arena):
    """The site's reason says how it ended ("crashed: exited with code 1 ..."); its owners also see
    the traceback's last line, as `armada play` says it locally (a trial: "the site only says it
    crashed"). The public reason never carries the log's text."""
    log = ('Traceback (most recent call last):\n  File "/bot/main.py", line 3, in <module>\n'
           "    model = load('model.onnx')\nInvalidProtobuf: Load model from model.onnx failed <secret path>\n"
           "[armada] crashed before answering init\n")
    BotVersion.objects.filter(pk=arena.alpha.pk).update(
        status="invalid", detail="crashed: exited with code 1; stopped before answering init (id 0)", log=log)
    url = f"/bots/{arena.alpha.bot_id}/versions/1/"
    client.force_login(arena.alice)
    html = page(client, url)
    assert ('The error, from its log: <code id="crash-line">InvalidProtobuf: Load model from model.onnx failed '
            "&lt;secret path&gt;</code>") in html
    client.logout()
    public = page(client, url)
    assert "crashed: exited with code 1" in public and "InvalidProtobuf" not in public
    assert 'id="try-locally"' not in public  # (a trial: others were told "Fix it, ... and upload again")
    client.force_login(arena.bob)
    other = page(client, url)
    assert "InvalidProtobuf" not in other and 'id="try-locally"' not in other
    assert 'id="try-locally"' in html
    # A trial uploaded a Mothership Down race to a Galaxy bot on the page: the library's own note says
    # `--game mothership` (advice for `armada play`), and the page said nothing more than "crashed".
    BotVersion.objects.filter(pk=arena.alpha.pk).update(log="[armada] --- request 0: init ---\n[armada] this is "
                                                        "a mothership bot; run with --game mothership (this match "
                                                        "is galaxy)\n")
    client.force_login(arena.alice)
    game_line = page(client, url)
    name = arena.alpha.bot.name
    assert (f'<code id="crash-line">this is a Mothership Down bot&#x27;s code (it uses the Mothership Down bot '
            f"library), and {name} plays Galaxy: upload it to a Mothership Down bot, or Galaxy code here</code>"
            ) in game_line


def test_a_race_with_one_point_says_one_point(client, make_user, valid_version):
    """A trial on a live `make up`: a new race that drew its only even battle read "#4, 1 points" on its
    bot page, "1 points" on its race page and the home page's league top."""
    from armada_web.ladder.league import sync_league
    from tests.pages.data import ORDERS_A

    first = valid_version(make_user("alice"), "hammer", game="mothership", orders=ORDERS_A)
    second = valid_version(make_user("bob"), "anvil", game="mothership", orders=ORDERS_A)  # the same orders: a draw
    sync_league()
    for version in (first, second):
        html = page(client, f"/bots/{version.bot_id}/")
        assert re.search(r'id="table-row">#\d</a>, 1 point \(0/1/0 W/D/L', html), html
        assert ", 1 point, 0/1/0 W/D/L" in page(client, f"/ladder/mothership/{version.bot_id}/")
    home = page(client, "/")
    assert "1 point</span>" in home and "1 points" not in home


def test_a_next_ranked_game_under_half_a_second_away_is_not_about_0_s(client, arena, monkeypatch):
    """A trial on a live `make up` with three demo bots: "Next ranked game: in about 0 s" (0.3 s,
    rounded) read as if it were never going to come."""
    from armada_web.ladder.queries import NextGame

    monkeypatch.setattr("armada_web.pages.bot_views.next_ranked_game", lambda bot_id: NextGame(0.3))
    html = page(client, f"/bots/{arena.alpha.bot_id}/")
    assert "in <strong>under a second</strong>" in html and "about <strong>0 s" not in html
    monkeypatch.setattr("armada_web.pages.bot_views.next_ranked_game", lambda bot_id: NextGame(12.4))
    assert "in about <strong>12 s</strong>" in page(client, f"/bots/{arena.alpha.bot_id}/")


def test_a_league_races_battles_come_a_page_at_a_time(client, make_user, valid_version, monkeypatch):
    """A cost audit: every battle is played on the request, and a league of 3,000 races made a race's
    page and its bot's page cost 0.6 s of CPU and 1.3 MB, for anyone. They show a page of battles."""
    from armada_web.ladder import queries
    from armada_web.ladder.league import sync_league
    from tests.pages.data import ORDERS_A, ORDERS_B

    races = [valid_version(make_user(f"user{n}"), f"race{n}", game="mothership",
                           orders=ORDERS_A if n % 2 else ORDERS_B) for n in range(4)]
    sync_league()
    monkeypatch.setattr(queries, "BATTLES_PER_PAGE", 2)
    me = races[0].bot_id
    for url in (f"/ladder/mothership/{me}/", f"/bots/{me}/"):
        first = page(client, url)
        assert first.count('class="watch"') == 2 and "page 1 of 2" in first and "?battles=2" in first
        second = page(client, f"{url}?battles=2")
        assert second.count('class="watch"') == 1 and "page 2 of 2" in second
        seen = {re.search(r"/ladder/mothership/\d+/(\d+)/", row)[1] for row in
                re.findall(r'href="/ladder/mothership/\d+/\d+/"', first + second)}
        assert seen == {str(r.bot_id) for r in races[1:]}  # every other race once, none twice
        refused = client.get(f"{url}?battles=3")
        assert refused.status_code == 400 and "battles page 3 does not exist" in refused.content.decode()
