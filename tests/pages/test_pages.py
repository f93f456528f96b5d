"""The public pages with Django's test client: content, privacy of logs, escaping, CSP, 404."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from armada.botlog import log_requests, request_kinds
from armada.timings import seat_times
from armada_web.pages.chart import line_chart
from armada_web.pages.docs import render_markdown
from armada_web.web.csp import POLICY

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-42"


def body(client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response.content.decode()


def no_raw_evil(html: str) -> None:
    assert "<script>window.__pwned" not in html and "<img src=x" not in html


RANK = re.compile(r'<tr id="bot-\d+"><td data-label="Rank" class="num">(\d+)</td>')


def test_galaxy_ladder_lists_ranks_and_searches(client, arena):
    html = body(client, "/ladder/galaxy/")
    rows = RANK.findall(html)
    assert rows == ["1", "2"]
    assert f'<tr id="bot-{arena.alpha.bot_id}">' in html  # the bot page's link to its row lands here
    assert html.index(">alpha<") < html.index(">beta<")
    assert "6.00" in html and "18.00" in html and "4.00" in html  # score, mu, sigma
    assert "3/0/1" in html and 'class="provisional"' in html
    assert f'href="/bots/{arena.alpha.bot_id}/versions/1/"' in html
    assert 'href="/users/alice/"' in html
    searched = body(client, "/ladder/galaxy/?q=bob")
    assert ">beta<" in searched and ">alpha<" not in searched
    assert RANK.findall(searched) == ["2"]  # its rank on the whole ladder


def test_galaxy_ladder_paginates(client, arena, settings, monkeypatch):
    monkeypatch.setattr("armada_web.pages.ladder_views.PER_PAGE", 1)
    assert ">alpha<" in body(client, "/ladder/galaxy/") and "page 1 of 2" in body(client, "/ladder/galaxy/")
    second = body(client, "/ladder/galaxy/?page=2")
    assert ">beta<" in second and ">alpha<" not in second


def test_a_version_leaving_the_ladder_while_the_page_is_read_costs_its_rank_not_the_page(client, arena,
                                                                                          monkeypatch):
    """Found by the soak (issue 20): a searched page's ranks are a second read of the ladder; a
    version that left the ladder in between shows no rank instead of failing the page (a 500)."""
    from armada_web.ladder.models import Rating
    from armada_web.pages import ladder_views

    read_ranks = ladder_views.ranks_of

    def change_then_rank(game, version_ids):
        Rating.objects.filter(version_id=version_ids[-1]).delete()  # gone before the ranks are read
        return read_ranks(game, version_ids)

    monkeypatch.setattr(ladder_views, "ranks_of", change_then_rank)
    html = body(client, "/ladder/galaxy/?q=a")  # alpha and beta (owner alice, bob: both hold an a)
    assert re.findall(r'<td data-label="Rank" class="num">(\d*)</td>', html) == ["1", ""]


def test_mothership_league_links_races_to_pairings_and_replays(client, arena):
    html = body(client, "/ladder/mothership/")
    no_raw_evil(html)
    assert "&lt;img src=x onerror" in html
    race = body(client, f"/ladder/mothership/{arena.race_a.bot_id}/")
    assert f'href="/ladder/mothership/{arena.race_a.bot_id}/{arena.race_b.bot_id}/"' in race
    pairing = body(client, f"/ladder/mothership/{arena.race_a.bot_id}/{arena.race_b.bot_id}/")
    assert f'data-armada-src="/api/ladder/mothership/{arena.race_a.bot_id}/{arena.race_b.bot_id}/replay/"' in pairing
    no_raw_evil(pairing)
    assert client.get(f"/api/ladder/mothership/{arena.race_a.bot_id}/{arena.race_b.bot_id}/replay/").status_code == 200
    body(client, f"/ladder/mothership/{arena.alpha.bot_id}/", 404)


def test_match_page_viewer_seats_and_command(client, arena):
    m = arena.match
    html = body(client, f"/matches/{m.pk}/")
    assert f'data-armada-src="/api/matches/{m.pk}/replay/"' in html
    assert "/static/armada/viewer/viewer.js" in html and "/static/armada/viewer/viewer.css" in html
    # issue 27: the command runs as written (it named the site's bots: "alpha: no such file or folder")
    assert (f"armada play builtin:random builtin:random --game galaxy --from-state match-{m.pk}.json.gz#turn=0"
            in html)
    assert f'download="match-{m.pk}.json.gz"' in html
    assert 'id="seats"' in html and "log-seat" not in html  # nobody signed in: no log
    from django.contrib.staticfiles import finders

    assert finders.find("armada/viewer/viewer.js")  # served from the SDK's folder


def test_match_page_shows_the_owner_their_log_with_turns_and_times(client, arena):
    client.login(username="alice", password=PASSWORD)
    html = body(client, f"/matches/{arena.match.pk}/")
    assert 'id="log-seat-1"' in html and 'id="log-seat-2"' not in html
    timings = seat_times(arena.replay, 1)
    # One block per request, with its time; a request whose lines the bot wrote late (D-R-9) is "quiet".
    assert html.count('class="log-request') == len(timings)
    assert html.count('class="log-request"') >= len(timings) - 3
    assert "log-line" in html and "chatty: scout 5" in html
    assert re.search(r'scout, turn 5 · request \d+ · <span class="log-ms">[\d.]+ ms</span>', html)
    # Every block names its type and turn, also the quiet ones (from the replay's steps), and says
    # which turn the viewer must show when it is clicked (match-log.js).
    blocks = re.findall(r'<div class="log-block" data-turn="(\d+)" data-request="(\d+)">\s*'
                        r'<div class="log-request[^"]*" role="button" tabindex="0">(\w+)(?:, turn (\d+))? · request',
                        html)
    assert len(blocks) == len(timings)
    assert blocks[0] == ("0", "0", "init", "")
    assert all(kind in ("scout", "command") and turn == shown for shown, _n, kind, turn in blocks[1:])
    assert [int(n) for _t, n, _k, _u in blocks] == list(range(len(timings)))
    assert 'class="log-crash"' not in html  # it did not crash


def test_the_owner_s_log_says_how_many_exceptions_the_library_caught(client, arena):
    """A trial: the match page said "ok" with an empty detail while the bot's code raised at every turn;
    the exceptions were only in the log's lines."""
    from django.core.files.base import ContentFile

    seat = arena.match.participants.get(seat=1)
    log = ("[armada] --- request 0: init ---\n[armada] --- request 1: scout, turn 1 ---\nfine\n"
           "[armada] --- request 2: command, turn 1 ---\n[armada] exception caught (turn 1, command id 2): "
           "AttributeError: 'Bot' object has no attribute 'lern'\n[armada] --- request 3: scout, turn 2 ---\n"
           "[armada] --- request 4: command, turn 2 ---\n[armada] exception caught (turn 2, command id 4): "
           "AttributeError\n")
    seat.log.save(f"caught-{seat.pk}.log", ContentFile(log.encode()), save=True)
    client.login(username="alice", password=PASSWORD)
    html = body(client, f"/matches/{arena.match.pk}/")
    assert ('<strong>2 exceptions caught</strong>: the bot library answered those requests with its fallback; '
            "the first in command, turn 1 (request 2).") in html
    client.logout()
    assert "exceptions caught" not in body(client, f"/matches/{arena.match.pk}/")  # the log's: its team's only


def test_log_requests_gives_each_line_its_type_turn_and_time():
    log = "hello\n[armada] --- request 0: init ---\nready\n[armada] --- request 1: turn, turn 1 ---\na\nb\n"
    log = log.replace("request 1:", "request 2:")  # request 1 wrote nothing: no mark
    seat = log_requests(log, [12.5, 1.0, 3.0])
    assert seat.head == ["hello"] and seat.crash == []
    assert [(r.number, r.type, r.turn, r.ms, r.lines) for r in seat.requests] == [
        (0, "init", None, 12.5, ["ready"]), (1, "", None, 1.0, []), (2, "turn", 1, 3.0, ["a", "b"])]
    kinds = request_kinds({"steps": [{"phase": "scout", "turn": 1}, {"phase": {"1": "command", "2": "x"}, "turn": 1}]},
                          1)
    named = log_requests(log, [12.5, 1.0, 3.0], kinds)
    assert [(r.type, r.turn) for r in named.requests] == [("init", None), ("scout", 1), ("command", 1)]



def test_the_request_a_match_ended_on_is_named_by_the_seats_fault():
    """No step records the request a seat timed out on; its fault names it, so the owner's log says
    "command, turn 33", not "request" without a turn (a new user's trial)."""
    steps = [{"phase": "scout", "turn": 1}, {"phase": "command", "turn": 1}, {"phase": "scout", "turn": 2}]
    seats = [{"seat": 1, "status": "ok", "detail": ""},
             {"seat": 2, "status": "timeout", "detail": "no reply to command (id 4, turn 2) within its limit"}]
    replay = {"steps": steps, "seats": seats}
    assert request_kinds(replay, 2)[-2:] == [("scout", 2), ("command", 2)]
    # The other seat was sent that request too (both seats answer every step): its log's last block
    # was "request 4" without a type or turn (a competitor's trial, with a bot crashing in turn 8).
    assert request_kinds(replay, 1) == [("init", None), ("scout", 1), ("command", 1), ("scout", 2), ("command", 2)]
    per_seat = {"steps": [{"phase": {"1": "a", "2": "b"}, "turn": 1}], "seats": seats}  # phases of their own
    seats[1]["detail"] = "no reply to b (id 2, turn 2) within its limit"
    assert request_kinds(per_seat, 2)[-1] == ("b", 2) and len(request_kinds(per_seat, 1)) == 2  # not guessed
    seats[1]["detail"] = "no reply to command (id 9, turn 2) within its limit"  # not the next request: left out
    assert len(request_kinds(replay, 2)) == 4 and len(request_kinds(replay, 1)) == 4


def test_a_crash_traceback_comes_first_with_its_request():
    log = ("[armada] --- request 0: init ---\nstarting\n[armada] --- request 3: command, turn 2 ---\nthinking\n"
           "Traceback (most recent call last):\n  File \"main.py\", line 9, in play\n"
           "ZeroDivisionError: division by zero\n")
    seat = log_requests(log, [1.0, 1.0, 1.0, 1.0])
    assert seat.crash == ["Traceback (most recent call last):", '  File "main.py", line 9, in play',
                          "ZeroDivisionError: division by zero"]
    assert seat.crash_request is not None and (seat.crash_request.number, seat.crash_request.turn) == (3, 2)


CAUGHT = ("[armada] exception caught (turn 3, command id 6): IndexError: list index out of range\n"
          "[armada] sending the fallback reply; the traceback:\nTraceback (most recent call last):\n"
          '  File "main.py", line 5, in command\nIndexError: list index out of range\n')


def test_an_exception_the_library_caught_is_not_the_crash():
    """A competitor's trial: a bot whose exception at turn 3 the library caught, and that timed out
    at turn 33 (or exited at turn 40), was shown "Its crash: command, turn 3" with that traceback."""
    from armada.botlog import crash_reason

    log = f"[armada] --- request 0: init ---\nready\n[armada] --- request 6: command, turn 3 ---\n{CAUGHT}"
    assert log_requests(log, [1.0] * 67).crash == [] and log_requests(log, None).crash == []
    assert crash_reason(log + "[armada] --- request 9: command, turn 4 ---\n") == ""
    # a crash after it is still the crash, from the library's own log or not
    crashed = log + ('[armada] --- request 8: command, turn 4 ---\nTraceback (most recent call last):\n'
                     '  File "main.py", line 9, in command\nKeyError: \'fleet\'\n')
    seat = log_requests(crashed, [1.0] * 9)
    assert seat.crash[-1] == "KeyError: 'fleet'" and seat.crash_request is not None
    assert seat.crash_request.number == 8 and crash_reason(crashed) == "KeyError: 'fleet'"


def test_only_the_last_requests_traceback_is_the_crash_when_every_request_is_known():
    """A bot that printed a traceback itself at request 3 and went on, then failed silently at request 10."""
    log = ("[armada] --- request 0: init ---\nready\n[armada] --- request 3: command, turn 2 ---\n"
           "Traceback (most recent call last):\n  File \"main.py\", line 9\nValueError: logged and went on\n")
    assert log_requests(log, [1.0] * 11).crash == []  # the requests up to 10 were all sent
    assert log_requests(log, [1.0] * 4).crash[-1] == "ValueError: logged and went on"  # 3 was the last
    early = "Traceback (most recent call last):\n  File \"main.py\", line 1\nImportError: no\n"
    assert log_requests(early, [1.0]).crash[-1] == "ImportError: no"  # before init's mark, nothing after


def _long_log(written: dict[int, bytes], lines: dict[int, int], after: bytes = b"") -> str:
    """A seat's log as a connection keeps it (head and tail of 64 KiB) over an init and 40 commands:
    `written[n]` then `lines[n]` (default 20) debug lines in request n, `after` at the end."""
    from armada.logmarks import request_mark
    from armada.referee.connection import LogBuffer

    log = LogBuffer()
    log.mark(request_mark({"type": "init", "id": 0}))
    log.feed(b"ready\n")
    for n in range(1, 41):
        log.mark(request_mark({"type": "command", "id": n, "turn": n}))
        log.feed(written.get(n, b"") + (b"debug " + b"y" * 200 + b"\n") * lines.get(n, 20))
    log.feed(after)
    return log.text()


def test_a_crash_after_a_cut_in_the_log_is_still_the_crash():
    """A review: past 64 KiB a log keeps its head and tail; the last request's mark fell in the cut,
    its crash sat under an earlier (caught) request, and the page and the reason lost it."""
    from armada.botlog import crash_reason

    caught = CAUGHT.replace("turn 3, command id 6", "turn 15, command id 15").encode()
    text = _long_log({15: caught}, {40: 200},
                     b'Traceback (most recent call last):\n  File "main.py", line 9, in command\nKeyError: \'fleet\'\n')
    assert "bytes of log dropped" in text and "request 40:" not in text
    kinds = [("init", None)] + [("command", n) for n in range(1, 41)]
    seat = log_requests(text, [1.0] * 41, kinds)
    assert seat.crash[-1] == "KeyError: 'fleet'" and crash_reason(text) == "KeyError: 'fleet'"
    # a traceback the bot printed itself early and went on after, then a long log and a timeout: no crash
    text = _long_log({2: b'Traceback (most recent call last):\n  File "main.py", line 3, in command\nKeyError: 1\n'},
                     {})
    assert "bytes of log dropped" in text and "request 40:" in text  # the last mark survived
    assert log_requests(text, [1.0] * 41, kinds).crash == []


def test_bot_page_chart_recent_matches_and_records(client, arena):
    html = body(client, f"/bots/{arena.alpha.bot_id}/")
    assert html.count('class="chart-dot"') == 8 and "<svg" in html and "<polyline" in html  # (4: wide and narrow)
    assert f'href="/matches/{arena.match.pk}/"' in html
    records = html[html.index('id="records"'):]
    pair = f"/matches/?bot={arena.alpha.bot_id}&amp;opponent={arena.beta.bot_id}"
    games = f'<td data-label="Games" class="num"><a href="{pair}" title="these matches">1</a></td>'
    assert f">beta</a></td>{games}" in records
    record = html[html.index('id="record">'):html.index("</p>", html.index('id="record">'))]
    assert record.startswith('id="record">1 match · ') and "finished" not in record  # the kept counts, all finished
    # A match in play counts in the matches, not yet in the results: the line says how many finished.
    from armada_web.matches.models import BotRecord

    BotRecord.objects.filter(bot_id=arena.alpha.bot_id).update(matches=2)
    assert 'id="record">2 matches · 1 finished: ' in body(client, f"/bots/{arena.alpha.bot_id}/")
    no_raw_evil(html)


def test_user_page_escapes_display_text(client, arena):
    html = body(client, "/users/alice/")
    no_raw_evil(html)
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    assert ">alpha<" in html and ">hammer<" in html
    body(client, "/users/nobody/", 404)


def test_home_has_games_ladder_tops_and_latest_matches(client, arena):
    html = body(client, "/")
    assert "Mothership Down" in html and "Galaxy" in html
    assert 'id="top-galaxy"' in html and ">alpha<" in html
    assert f'href="/matches/{arena.match.pk}/"' in html
    no_raw_evil(html)


def test_every_page_has_the_csp_without_unsafe_inline(client, arena):
    for url in ("/", "/ladder/galaxy/", f"/matches/{arena.match.pk}/", "/docs/galaxy/", "/nope/", "/api/docs/"):
        response = client.get(url)
        assert response["Content-Security-Policy"] == POLICY
    assert "unsafe-inline" not in POLICY and "script-src 'self';" in POLICY and "frame-ancestors 'none'" in POLICY


def test_templates_have_no_inline_script_or_style(client, arena):
    client.login(username="alice", password=PASSWORD)
    for url in ("/", "/ladder/galaxy/", "/ladder/mothership/", f"/matches/{arena.match.pk}/",
                f"/bots/{arena.alpha.bot_id}/", f"/bots/{arena.alpha.bot_id}/versions/1/", "/my/bots/",
                "/users/alice/", "/sdk/", "/docs/", "/docs/protocol/", "/accounts/profile/", "/api/docs/"):
        html = body(client, url)
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), url
        assert not re.search(r"<style|<[a-z][^>]*\s(style|on[a-z]+)=", html), url


def test_404_page_is_helpful(client, db):
    html = body(client, "/no/such/page/", 404)
    assert "Nothing here" in html and 'href="/ladder/galaxy/"' in html
    assert "Nothing here" in body(client, "/matches/999999/", 404)


def test_markdown_escapes_html():
    html = str(render_markdown("x <script>alert(1)</script>\n\n<div onclick=x>y</div>"))
    assert "<script" not in html and "<div" not in html and "&lt;script&gt;" in html


def test_sdk_page_serves_the_wheel(client, db, settings, tmp_path):
    settings.ARMADA_SDK_DIR = tmp_path / "sdk"
    assert 'id="no-wheel"' in body(client, "/sdk/")
    (tmp_path / "sdk").mkdir()
    (tmp_path / "sdk" / "armada-0.1.0-py3-none-any.whl").write_bytes(b"PK-wheel")
    html = body(client, "/sdk/")
    assert "pip install http://testserver/sdk/armada-0.1.0-py3-none-any.whl" in html
    assert "armada new" in html and "armada login http://testserver\n" in html and "armada submit mybot" in html
    # The extras by the wheel's address: `armada` on PyPI is another project.
    for extra in ("rl", "learn"):
        assert f'pip install "armada[{extra}] @ http://testserver/sdk/armada-0.1.0-py3-none-any.whl"' in html
    response = client.get("/sdk/armada-0.1.0-py3-none-any.whl")
    assert response.status_code == 200 and b"".join(response.streaming_content) == b"PK-wheel"
    assert client.get("/sdk/other.whl").status_code == 404


def test_chart_is_escaped_svg():
    svg = str(line_chart([1.0, 2.0], ["<b>x</b>", "y"], title="<t>"))
    assert svg.startswith("<svg") and "<b>" not in svg and "&lt;b&gt;" in svg
    assert str(line_chart([])) == ""


def test_the_api_page_links_back_to_the_site_in_its_dark_theme(client, db):
    html = body(client, "/api/docs/")
    assert '<a class="armada-brand" href="/">Armada</a>' in html and 'href="/docs/"' in html
    assert "/static/pages/swagger-dark.css" in html
    assert html.index("swagger-ui.css") < html.index("swagger-dark.css")  # ours wins
    from django.contrib.staticfiles import finders

    css = Path(finders.find("pages/swagger-dark.css")).read_text(encoding="utf-8")
    assert "--bg: #0b1020" in css and ".swagger-ui .opblock {" in css  # the site's colours (site.css :root)
    site = Path(finders.find("pages/site.css")).read_text(encoding="utf-8")
    assert "--bg: #0b1020" in site


def test_chart_axes_are_labelled():
    svg = str(line_chart([1.0, 2.0, 1.5], title="t", y_label="score (mu - 3 sigma)", x_label="ranked matches (3)",
                         x_ends=("2025-01-01 10:00", "2025-01-02 11:00")))
    for text in ("score (mu - 3 sigma)", "ranked matches (3)", "2025-01-01 10:00", "2025-01-02 11:00",
                 ">2.0<", ">1.0<"):
        assert text in svg
    assert svg.count('class="chart-axis"') == 2


def test_the_result_names_the_bot_and_a_crash_comes_first(client, arena, tmp_path):
    from tests.pages.data import CRASHER, finished_match

    match, _replay = finished_match(arena.alpha, arena.beta, tmp_path, source=CRASHER)
    html = body(client, f"/matches/{match.pk}/")
    assert "beta (seat 2) won by forfeit (the other bot faulted)." in html and "Seat 2 won" not in html
    client.login(username="alice", password=PASSWORD)
    html = body(client, f"/matches/{match.pk}/")
    crash = html.index('class="log-crash"')
    assert crash < html.index('class="log-block"')  # above the quiet requests
    assert re.search(r"Its crash: scout, turn 3 \(request \d+\)", html)
    assert "ZeroDivisionError: division by zero, on purpose" in html[crash:html.index('class="log-block"')]


def test_a_mothership_match_counts_rounds(client, arena):
    from armada_web.matches.models import Match

    m = Match.objects.create(game="mothership", seed=1, status="finished", turns=7,
                             outcome={"winner": None, "outcome": "draw", "turns": 7})
    html = body(client, f"/matches/{m.pk}/")
    main = html.split('<main id="content" tabindex="-1">')[1].split("</main>")[0]
    assert "· 7 rounds ·" in html and "turns" not in main
    assert '<p class="panel" id="result">Draw.</p>' in html


def test_favicon_ico_leads_to_the_sites_icon(client):
    """Pages without an icon of their own (DRF's browsable API, the admin) make browsers ask for
    /favicon.ico: it leads to the site's icon instead of a 404 in the console."""
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301 and answer["Location"].startswith("/static/pages/favicon")
    assert answer["Location"].endswith(".svg")
