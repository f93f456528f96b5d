"""Issue 27 on the match page (Django's test client): each seat's time, the re-run command and the
requests' link for the owner only, and the page's commands run as written."""

from __future__ import annotations

import shlex

import pytest
from django.template.defaultfilters import floatformat

from armada.cli.main import main
from armada.referee.environment import bot_seed, seed_key
from armada_web.matches.storage import read
from tests.pages.data import CHATTY
from tests.pages.test_pages import PASSWORD, body

pytestmark = pytest.mark.django_db


def commands(html: str) -> list[str]:
    import html as markup
    import re

    return [markup.unescape(c) for c in re.findall(r'<pre class="cmd"[^>]*>([^<]*)</pre>', html)]


def test_times_for_all_and_the_rerun_for_the_owner_only(client, arena, make_user):
    m = arena.match
    html = body(client, f"/matches/{m.pk}/")
    assert 'id="timings"' in html and 'id="timing-seat-1"' in html and 'id="timing-seat-2"' in html
    total = floatformat(arena.match.participants.get(seat=1).timing["total_ms"], 0)  # as the page rounds a half
    assert f"{total} ms" in html
    assert "--rerun" not in html and "/requests/" not in html  # anonymous: nothing private

    client.login(username="alice", password=PASSWORD)
    html = body(client, f"/matches/{m.pk}/")
    assert 'id="rerun-seat-1"' in html and 'id="rerun-seat-2"' not in html
    seed = bot_seed(m.seed, 1, seed_key())
    name = m.participants.get(seat=1).version.bot.name
    assert f"armada replay match-{m.pk}.json.gz --rerun 1 {name}/ --bot-seed {seed}" in commands(html)
    assert f'href="/api/matches/{m.pk}/requests/?seat=1"' in html and "?seat=2" not in html

    make_user("root", is_staff=True)
    client.login(username="root", password=PASSWORD)
    html = body(client, f"/matches/{m.pk}/")
    assert 'id="rerun-seat-1"' in html and 'id="rerun-seat-2"' in html

    seat = m.participants.get(seat=1)
    slowest = floatformat(seat.timing["max_ms"], 0)
    seat.timing = {**seat.timing, "max_request": 0}  # the init was its slowest request (a competitor's trial)
    seat.save()
    assert f"{slowest} ms (init)</td>" in body(client, f"/matches/{m.pk}/")
    seat.timing = {**seat.timing, "max_request": 5}  # recorded before the request's kind and turn were kept
    seat.save()
    assert f"{slowest} ms</td>" in body(client, f"/matches/{m.pk}/")
    seat.timing = {**seat.timing, "max_where": "command, turn 3"}
    seat.save()
    assert f"{slowest} ms (command, turn 3)</td>" in body(client, f"/matches/{m.pk}/")

    m.participants.update(timing=None)  # an older match: no time stored
    assert 'id="timings"' not in body(client, f"/matches/{m.pk}/")


def test_the_pages_commands_run_as_written(client, arena, tmp_path, monkeypatch, capsys):
    m = arena.match
    monkeypatch.chdir(tmp_path)
    (tmp_path / f"match-{m.pk}.json.gz").write_bytes(read(m.replay.name))
    mybot = tmp_path / m.participants.get(seat=1).version.bot.name  # the folder the command names
    mybot.mkdir()
    (mybot / "main.py").write_text(CHATTY.replace("STARTER", repr(str(_prober()))))  # seat 1's bot, as played
    client.login(username="alice", password=PASSWORD)
    shown = commands(body(client, f"/matches/{m.pk}/"))
    play = next(c for c in shown if c.startswith("armada play "))
    rerun = next(c for c in shown if "--rerun" in c)
    assert main([*shlex.split(play)[1:], "--json"]) == 0  # starters in both seats: no "no such file"
    capsys.readouterr()
    assert main(shlex.split(rerun)[1:]) == 0
    assert capsys.readouterr().out.startswith(f"all {m.turns} turns agree (")


def _prober():
    from armada.botspec import starter_file

    return starter_file("prober", "galaxy")


def test_a_bot_name_starting_with_a_dash_is_no_option_to_the_command():
    """A review: a validation's replay file is named after its bot, and a name may start with "-"."""
    from armada_web.matches.rerun import replay_rerun_command

    command = replay_rerun_command(replay_file="-spiker-v1-validation.json.gz", game_seed=1, seat=1, bot_name="-spiker")
    assert command.startswith("armada replay ./-spiker-v1-validation.json.gz --rerun 1 ./-spiker/ --bot-seed ")
