"""`armada challenge` against the fake site: names or ids, the match's page, --wait and its result, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from armada.cli import config
from armada.cli.main import main
from tests.sdk.cli.fake_site import TOKEN, FakeSite


@pytest.fixture
def arena(site: FakeSite, home: Path) -> FakeSite:
    """Logged in as alice, who has mybot; bob has rival (both Galaxy)."""
    config.save_credentials(config.Credentials(site.url, TOKEN, "alice"))
    site.bots = [{"id": 3, "name": "mybot", "game": "galaxy", "owner": "alice", "retired": False},
                 {"id": 8, "name": "rival", "game": "galaxy", "owner": "bob", "retired": False}]
    return site


def test_challenge_by_name_prints_the_match_page(arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["challenge", "mybot", "rival"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["match 500 queued: mybot v1 (seat 1) vs rival v1 (seat 2)",
                                f"url: {arena.url}/matches/500/"]
    assert arena.paths() == ["GET /api/version/", "POST /api/challenges/"]
    request = arena.seen("POST", "/api/challenges/")[0]
    assert request.json() == {"bot": "mybot", "opponent": "rival"}
    assert request.headers["Authorization"] == f"Token {TOKEN}"


def test_ids_are_sent_as_numbers_and_an_absolute_url_is_taken_as_is(arena: FakeSite,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    arena.match_link = "url"
    assert main(["challenge", "3", "8"]) == 0
    assert arena.seen("POST", "/api/challenges/")[0].json() == {"bot": 3, "opponent": 8}
    assert capsys.readouterr().out.splitlines()[-1] == f"url: {arena.url}/matches/500/"


def test_wait_prints_the_result_naming_the_bots(arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    arena.match_players = [("crashed", "exited with code 1 in turn 4"), ("ok", "")]
    assert main(["challenge", "mybot", "rival", "--wait"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "match 500 queued: mybot v1 (seat 1) vs rival v1 (seat 2)",
        f"url: {arena.url}/matches/500/",
        "match 500: finished",
        "winner:  seat 2, rival v1, by elimination",
        "turns:   31",
        "",
        "seat  bot       status   detail",
        "----  --------  -------  ----------------------------",
        "   1  mybot v1  crashed  exited with code 1 in turn 4",
        "   2  rival v1  ok",
        "",
        "log of seat 1 (mybot v1), last lines:",
        "    log of mybot",
        "    Traceback: boom",
        f"replay:  {arena.url}/api/matches/500/replay/",
        f"url: {arena.url}/matches/500/",
    ]
    assert captured.err.splitlines() == ["armada: match 500: queued", "armada: match 500: running",
                                         "armada: match 500: finished"]
    assert set(arena.paths()[2:]) == {"GET /api/matches/500/"}


def test_a_draw(arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    arena.match_result = {"winner": None, "outcome": "draw", "turns": 200}
    assert main(["challenge", "mybot", "rival", "--wait"]) == 0
    out = capsys.readouterr().out
    assert "winner:  draw\n" in out and "turns:   200\n" in out


@pytest.mark.parametrize("status", ["void", "failed"])
def test_a_match_the_site_could_not_play_exits_3(status: str, arena: FakeSite,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    arena.match_statuses = ["running", status]
    arena.match_reason = "the Docker engine did not answer"
    assert main(["challenge", "mybot", "rival", "--wait"]) == 3
    captured = capsys.readouterr()
    assert f"match 500: {status}: the Docker engine did not answer\n" in captured.out
    assert captured.err.splitlines()[-1] == (f"armada: error: the site could not play match 500 ({status}): "
                                             "the Docker engine did not answer; nobody's result, a platform failure")


def test_a_match_void_because_a_bot_was_deleted_says_so_not_a_platform_failure(
        arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """The site's reason for it is "void: seat N's bot was deleted ..." (matches.execution.deleted):
    said once, and not blamed on the platform (before: "void: void: ...; a platform failure")."""
    arena.match_statuses = ["running", "void"]
    arena.match_reason = "void: seat 2's bot was deleted during the match (no result, no rating change)"
    assert main(["challenge", "mybot", "rival", "--wait"]) == 3
    captured = capsys.readouterr()
    assert "match 500: void: seat 2's bot was deleted during the match" in captured.out
    assert "void: void" not in captured.out + captured.err and "platform" not in captured.err
    assert captured.err.splitlines()[-1] == ("armada: error: match 500 does not count: seat 2's bot was deleted "
                                             "during the match (no result, no rating change)")


def test_wait_times_out_with_exit_3(arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    arena.match_statuses = ["running"]
    assert main(["challenge", "mybot", "rival", "--wait", "--timeout", "0.2"]) == 3
    captured = capsys.readouterr()
    assert "match 500: still running after 0.2 s" in captured.out
    assert f"the result will appear at {arena.url}/matches/500/" in captured.err


def test_a_wait_that_times_out_says_why_the_match_waits(arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """An organiser's trial: a challenge sat queued through a season's finals on a one-worker site and
    `--wait` ended with "still queued" alone."""
    arena.match_statuses = ["queued"]
    arena.match_waiting = "every match worker plays a season's finals now, which come first: this match plays once " \
                          "they end or need fewer workers"
    assert main(["challenge", "mybot", "rival", "--wait", "--timeout", "0.2"]) == 3
    out = capsys.readouterr().out.splitlines()
    assert out[-3:-1] == ["match 500: still queued after 0.2 s", f"why: {arena.match_waiting}"]
    arena.match_waiting = ""
    assert main(["challenge", "mybot", "rival", "--wait", "--timeout", "0.2"]) == 3
    assert not any(line.startswith("why:") for line in capsys.readouterr().out.splitlines())


@pytest.mark.parametrize(("argv", "message"), [
    (["mybot", "nobody"], "challenge refused: no bot 'nobody' (HTTP 404)"),
    (["99", "rival"], "challenge refused: no bot 99 (HTTP 404)"),
    (["rival", "mybot"], "challenge refused: not your bot: challenge with one of your own bots (HTTP 403)"),
    (["mybot", "mybot"], "challenge refused: a bot cannot challenge itself (HTTP 400)"),
])
def test_refusals_exit_2_with_the_sites_words(argv: list[str], message: str, arena: FakeSite,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["challenge", *argv, "--wait"]) == 2
    assert capsys.readouterr().err == f"armada: error: {message}\n"
    assert arena.matches == {}


def test_the_hourly_limit_is_the_sites_detail(arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    arena.challenges_left = 0
    assert main(["challenge", "mybot", "rival"]) == 2
    assert capsys.readouterr().err == ("armada: error: challenge refused: challenge limit reached: 10 challenges "
                                       "per hour; try again within the hour (HTTP 429)\n")


def test_bad_token_and_not_logged_in(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["challenge", "mybot", "rival", "--server", site.url]) == 2
    assert "not logged in: run `armada login`" in capsys.readouterr().err
    assert site.requests == []
    monkeypatch.setenv("ARMADA_TOKEN", "revoked")
    assert main(["challenge", "mybot", "rival", "--server", site.url]) == 2
    assert "the server refused the token in ARMADA_TOKEN (Invalid token.)" in capsys.readouterr().err


def test_server_failure_exits_3(arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    arena.force("POST", "/api/challenges/", 500, {"detail": "boom"})
    assert main(["challenge", "mybot", "rival"]) == 3
    assert "the server failed on POST /api/challenges/ (HTTP 500): boom" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["challenge", "mybot"], "the following arguments are required: OPPONENT"),
    (["challenge", "my bot", "rival"], "bad MYBOT 'my bot': give a bot's id or its name"),
    (["challenge", "mybot", "x"], "bad OPPONENT 'x'"),
    (["challenge", "mybot", "rival", "--timeout", "0"], "above 0"),
])
def test_usage_errors(argv: list[str], message: str, arena: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert arena.requests == []


def test_challenge_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["challenge", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: armada challenge") and "MYBOT OPPONENT" in out.split("\n\n")[0]
    assert "armada challenge mybot rival --wait" in out.split("examples:")[1]
