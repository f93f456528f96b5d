"""Every rating change explained on the pages (issue 27): one line per rated seat on the match page and
per recent match on the bot page, the rating chart's points linking their matches with a mark where
each version began, and a league race's counts that agree with its league record."""

from __future__ import annotations

import itertools
import re

import pytest

from armada_web.ladder.explain import explained
from armada_web.matches.models import Match
from tests.ladder.test_recompute_ratings import play
from tests.pages.data import recorded_match
from tests.pages.test_bot_page import page, second_version

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _unconsumed(settings):
    settings.ARMADA = settings.ARMADA.with_(matches_queue=settings.ARMADA.validation_queue)


@pytest.fixture
def pair(make_user, valid_version):
    return valid_version(make_user("ann"), "ann-bot"), valid_version(make_user("ben"), "ben-bot")


def test_the_match_page_explains_each_rated_seat(client, pair):
    ann, ben = pair
    play(ann, ben, 1, ("ok", "ok"))
    play(ann, ben, 2, ("ok", "ok"))  # ben beats the bot that beat him
    match = Match.objects.order_by("-id").first()
    html = page(client, f"/matches/{match.pk}/")
    box = html[html.index('id="rating-changes"'):html.index("</ul>", html.index('id="rating-changes"'))]
    lines = re.findall(r'<span class="rating-line">([^<]+)</span>', box)
    rows = explained(list(match.participants.order_by("seat")))
    assert lines == [row.line.replace("<", "&lt;").replace(">", "&gt;") for row in rows]
    chance = r"this bot had an? \d+% chance of winning"
    assert re.match(r"-\d+\.\d: lost to a bot rated \d+ below this bot; " + chance, lines[0])
    assert re.match(r"\+\d+\.\d: beat a bot rated \d+ above this bot; " + chance, lines[1])
    assert 'href="/docs/ratings/"' in box
    challenge = recorded_match(ann, ben, 1, kind="challenge")
    html = page(client, f"/matches/{challenge.pk}/")
    assert 'id="rating-changes"' not in html
    # its seats' rating column says why it is empty (a trial found it blank)
    assert html.count('<td data-label="Rating after (mu ± sigma)"><span class="muted">unrated: a challenge</span>') == 2


def test_you_on_a_match_page_is_only_the_viewer_never_a_seat(client, pair):
    # The YOU mark is the signed-in user's bot; the rating lines said "you" of either seat's bot.
    ann, ben = pair
    play(ann, ben, 2, ("ok", "ok"))
    match = Match.objects.order_by("-id").first()
    client.force_login(ann.bot.owner)
    html = page(client, f"/matches/{match.pk}/")
    assert html.count('<span class="badge you" title="your bot">you</span>') == 2  # heading and ann's row
    box = html[html.index('id="rating-changes"'):html.index("</ul>", html.index('id="rating-changes"'))]
    lines = re.findall(r'<span class="rating-line">([^<]+)</span>', box)
    assert len(lines) == 2 and all("this bot had a" in line for line in lines)
    assert not any(re.search(r"\byour?\b", line, re.IGNORECASE) for line in lines)


def test_the_bot_page_explains_its_recent_matches_and_links_its_chart(client, pair, make_user, valid_version):
    ann, ben = pair
    play(ann, ben, 1, ("ok", "ok"))
    play(ben, ann, None, ("ok", "ok"))
    newer = second_version(valid_version, ann.bot.owner, ann)
    play(newer, ben, 2, ("ok", "ok"))
    html = page(client, f"/bots/{ann.bot_id}/")
    matches = list(Match.objects.filter(kind="ranked").order_by("id"))
    recent = html[html.index("<h2>Recent matches</h2>"):]
    lines = re.findall(r'<div class="rating-line muted">([^<]+)</div>', recent)
    assert [line.split(": ", 1)[1].split(" a bot")[0] for line in lines] == ["lost to", "drew with", "beat"]
    figure = html[html.index('id="rating-chart"'):html.index("</figure>")]
    chart, narrow = figure.split("</svg>")[:2]  # the wide drawing, then a phone's (the page shows one)
    assert 'class="chart chart-wide" viewBox="0 0 600 ' in chart
    assert 'class="chart chart-narrow" viewBox="0 0 320 ' in narrow
    assert re.findall(r'href="(/matches/\d+/)"', narrow) == re.findall(r'href="(/matches/\d+/)"', chart)
    links = re.findall(r'<a class="chart-link" href="(/matches/\d+/)">', chart)
    assert links == [f"/matches/{m.pk}/" for m in matches]  # every point, oldest first
    marks = re.findall(r'<line class="chart-mark" x1="([\d.]+)"', chart)
    labels = re.findall(r'<text class="chart-label chart-mark-label" x="([\d.]+)"[^>]*>(v\d)</text>', chart)
    dots = re.findall(r'<circle class="chart-dot" cx="([\d.]+)"', chart)
    assert [float(x) for x in marks] == [float(dots[0]), float(dots[2])]
    # beside their marks: v1 right of the first point, v2 (begun at the last point) left of it
    assert [(float(x), text) for x, text in labels] == [(float(dots[0]) + 3, "v1"), (float(dots[2]) - 3, "v2")]
    # the explanation of the lines is a link away here and on the ladder, not only on match pages (a trial)
    figure = html[html.index('id="rating-chart"'):]
    assert '<a href="/docs/ratings/">how ratings move</a>' in figure[:figure.index("</figcaption>")]
    assert '<a href="/docs/ratings/">How ratings move</a>' in page(client, f"/ladder/{ann.bot.game}/")


def test_labels_of_versions_begun_a_few_games_apart_never_overlap():
    """Seen on deadline day: versions uploaded seconds apart drew "v v4" and "vv6" on the chart."""
    from armada_web.pages.chart import CHAR, MARK_ROWS, line_chart

    # twelve versions at the start, and four at the end (their labels left of their marks)
    marks = [(i, f"v{i + 1}") for i in range(12)] + [(296 + i, f"v{13 + i}") for i in range(4)]
    svg = str(line_chart([float(i % 7) for i in range(300)], marks=marks))
    labels = re.findall(r'<text class="chart-label chart-mark-label" x="([\d.]+)" y="([\d.]+)"( text-anchor="end")?>'
                        r'(v\d+)</text>', svg)
    rows: dict[str, list[tuple[float, float]]] = {}
    for x, y, end, text in labels:  # a label's x is where it starts, or ends when it is anchored at its end
        width = CHAR * len(text)
        rows.setdefault(y, []).append((float(x) - width, float(x)) if end else (float(x), float(x) + width))
    assert 1 < len(rows) <= MARK_ROWS and 6 < len(labels) < 16  # stacked, and what has no room is left out
    assert any(end for _x, _y, end, _text in labels)
    for spans in rows.values():
        ordered = sorted(spans)
        assert all(a_end < b_start for (_a, a_end), (b_start, _b) in itertools.pairwise(ordered))
    assert svg.count('class="chart-mark"') == 16  # every version's line stays


def test_version_labels_are_drawn_over_the_line_and_never_past_the_right_edge():
    """Seen in a trial: "v3" under the line where the rating peaked, and a version begun at the last
    point cut to "v:" by the image's edge."""
    from armada_web.pages.chart import WIDTH, line_chart

    svg = str(line_chart([1.0, 5.0, 9.0, 8.0], marks=[(0, "v1"), (2, "v2"), (3, "v13")]))
    labels = re.findall(r'<text class="chart-label chart-mark-label" x="([\d.]+)" y="[\d.]+"( text-anchor="end")?>'
                        r'(v\d+)</text>', svg)
    assert [text for _x, _end, text in labels] == ["v1", "v2", "v13"]
    assert svg.index('class="chart-line"') < svg.index("chart-mark-label")  # painted after (over) the line
    assert svg.rindex('class="chart-dot"') < svg.index("chart-mark-label")  # and its dots
    x, end, _text = labels[2]
    assert end and float(x) <= WIDTH  # the last point's label ends at its mark, left of it
    assert all(not end and float(x) + 7 * len(text) <= WIDTH for x, end, text in labels[:2])


def test_a_chart_label_is_never_cut_by_the_image_edge():
    from armada_web.pages.chart import TITLE_EDGE, line_chart

    svg = str(line_chart([210632.0, -10632.5], y_label="score"))
    for x, text in re.findall(r'<text class="chart-label" x="([\d.]+)" y="[\d.]+" text-anchor="end">([^<]+)<', svg):
        assert float(x) - 7 * len(text) >= TITLE_EDGE  # right-aligned: its start is right of the y title
    assert {"210632.0", "-10632.5"} <= set(re.findall(r">(-?\d+\.\d)<", svg))


def test_a_league_race_counts_its_battles_as_its_league_record_does(client, arena):
    """The league's battles are not matches: the record line counts them from the league's entry (it
    said "0 matches" above "League #1, 3/0/0"); its games have no challenges, so "0 challenge matches" is
    not said (a trial), and a match outside the league is counted apart."""
    leader = arena.race_b
    html = page(client, f"/bots/{leader.bot_id}/")
    record = re.search(r'<p id="record">(.*?)</p>', html, re.S).group(1)
    league = re.search(r"(\d+)/(\d+)/(\d+) W/D/L", html)
    wins, draws, losses = (int(n) for n in league.groups())
    assert record.startswith(f"{wins + draws + losses} league battle")
    assert f"{wins} won, {draws} drawn, {losses} lost" in record and "challenge" not in record
    assert "0 matches" not in record and "outside the league" not in record
    recorded_match(leader, arena.race_a, 1, kind="challenge")
    record = re.search(r'<p id="record">(.*?)</p>', page(client, f"/bots/{leader.bot_id}/"), re.S).group(1)
    assert "1 match outside the league (1 won, 0 drawn, 0 lost)" in record


def test_an_event_match_says_an_event_not_a_event(client, pair, make_user):
    # A trial read "unrated: a event" in both seats of a private event's match page.
    ann, ben = pair
    match = recorded_match(ann, ben, None, kind="event")
    staff = make_user("root")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    html = page(client, f"/matches/{match.pk}/")
    assert html.count('<span class="muted">unrated: an event</span>') == 2
    assert "a event" not in html
