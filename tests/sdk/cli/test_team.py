"""`armada team create|join|leave|show` and `armada submit --team` against the fake site (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from armada.cli import config
from armada.cli.main import main
from tests.sdk.cli.fake_site import TOKEN, FakeSite


@pytest.fixture
def logged_in(site: FakeSite, home: Path) -> FakeSite:
    config.save_credentials(config.Credentials(site.url, TOKEN, "alice"))
    return site


def test_create_show_join_and_leave(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["team", "create", "Red Fleet"]) == 0
    out = capsys.readouterr().out
    assert "created team Red Fleet (id 2)" in out and "join key: KEY" in out
    assert logged_in.seen("POST", "/api/teams/")[0].json() == {"name": "Red Fleet"}
    assert main(["team", "show"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("*") and "alice (personal)" in listed[0] and "Red Fleet" in listed[1]
    assert main(["team", "show", "red fleet"]) == 0
    assert "join key: KEY" in capsys.readouterr().out
    assert main(["team", "join", "2", "WRONG"]) == 2
    assert "join key" in capsys.readouterr().err
    assert main(["team", "join", "2", "KEY"]) == 0
    config.save_default_team("id:2")  # as `armada submit --team "Red Fleet"` keeps it
    capsys.readouterr()
    assert main(["team", "leave", "Red Fleet"]) == 0
    assert logged_in.seen("POST", "/api/teams/2/leave/")
    # a final trial: the team left stayed the default, and the next plain `armada submit` was refused
    assert config.default_team() is None and "uploads to your own bots again" in capsys.readouterr().out
    assert main(["team", "leave", "nobody"]) == 2
    assert "no team named 'nobody'" in capsys.readouterr().err
    logged_in.teams[1].update(members=[], archived=True)  # archived, and its last member left
    assert main(["team", "show", "id:2"]) == 0
    assert "members: none\n" in capsys.readouterr().out  # (a trial saw an empty "members: ")


def test_a_server_answering_without_json_is_named_not_just_its_status(logged_in: FakeSite,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A 404 page of another web server (or a proxy's) reads as such, not as a bare "HTTP 404"."""
    logged_in.force("GET", "/api/teams/", 404, b"<html>Not Found</html>", "text/html")
    assert main(["team", "show"]) == 2
    err = capsys.readouterr().err
    assert "GET /api/teams/: HTTP 404" in err and f"check the server address {logged_in.url}" in err
    logged_in.force("GET", "/api/teams/", 404, {"detail": "no such team"})
    assert main(["team", "show"]) == 2
    assert "no such team (HTTP 404)" in capsys.readouterr().err  # Armada's own answer, as it was


def test_join_needs_an_id_and_a_key(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["team", "join", "2"]) == 2
    assert main(["team", "join", "Red", "KEY"]) == 2
    assert "id" in capsys.readouterr().err
    assert main(["team", "join", f"{logged_in.url}/teams/2/join/"]) == 2  # a link without its key
    assert "or the team's join link in quotes" in capsys.readouterr().err
    assert not logged_in.seen("POST", "/api/teams/2/join/")


def test_join_takes_the_join_link(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """The team page hands on a link (`.../teams/12/join/?key=KEY`): `armada team join LINK` joins with it
    (an audit of bad input: it said "needs TEAM (its id) and KEY" to the link the page gave)."""
    assert main(["team", "create", "Red Fleet"]) == 0
    assert main(["team", "join", f"{logged_in.url}/teams/2/join/?key=KEY"]) == 0
    assert logged_in.seen("POST", "/api/teams/2/join/")[-1].json() == {"key": "KEY"}
    out, err = capsys.readouterr()
    assert "joined team Red Fleet (id 2)" in out and "note" not in err
    assert main(["team", "join", "https://elsewhere.example/teams/2/join/?key=KEY"]) == 0
    assert f"the link is elsewhere.example's; joining team 2 on {logged_in.url}" in capsys.readouterr().err


def test_submit_team_creates_the_bot_for_the_team_and_remembers_it(logged_in: FakeSite, home: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.teams.append({"id": 2, "name": "Red Fleet", "personal": False, "archived": False,
                            "members": [{"username": "alice"}], "join_key": "KEY"})
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "crewbot", "--team", "red fleet",
                 "--no-wait"]) == 0
    assert logged_in.seen("POST", "/api/bots/")[0].json()["team"] == 2
    assert "created bot crewbot (galaxy) in team Red Fleet" in capsys.readouterr().out
    assert config.default_team() == "id:2"  # by id: a rename on the site keeps it the default
    assert json.loads(config.config_path().read_text())["token"] == TOKEN  # the credentials stay
    # Without --team: the remembered team's bot gets the next version.
    assert main(["submit", "builtin:greedy", "--game", "galaxy", "--bot", "crewbot", "--no-wait"]) == 0
    assert len(logged_in.seen("POST", "/api/bots/")) == 1
    assert len(logged_in.seen("POST", "/api/bots/1/versions/")) == 2
    # said, since a shared team's bot never moves out of it: the default is a team, and how to leave it
    assert "armada: team Red Fleet (remembered from your last --team; --team alice for your own bots)" \
        in capsys.readouterr().err
    logged_in.teams[-1]["name"] = "Blue Fleet"  # renamed by a member: still the default, and marked so
    assert main(["submit", "builtin:greedy", "--game", "galaxy", "--bot", "crewbot", "--no-wait"]) == 0
    assert len(logged_in.seen("POST", "/api/bots/1/versions/")) == 3
    assert main(["team", "show"]) == 0
    marked = [line for line in capsys.readouterr().out.splitlines() if line.startswith("*")]
    assert len(marked) == 1 and "Blue Fleet" in marked[0]
    config.save_default_team("red fleet")  # as an older SDK stored it: a name still works
    logged_in.teams[-1]["name"] = "Red Fleet"
    assert main(["submit", "builtin:greedy", "--game", "galaxy", "--bot", "crewbot", "--no-wait"]) == 0
    assert len(logged_in.seen("POST", "/api/bots/1/versions/")) == 4
    config.save_credentials(config.Credentials(logged_in.url, "other", "alice"))  # a new login keeps it
    assert config.default_team() == "red fleet"


def test_submit_to_a_team_you_are_not_in_is_refused(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "crewbot", "--team", "Blue"]) == 2
    assert "no team named 'Blue'" in capsys.readouterr().err
    assert not logged_in.seen("POST", "/api/bots/")


def test_a_remembered_team_you_left_says_where_it_came_from(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    config.save_default_team("id:8")  # a team left since
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "crewbot", "--no-wait"]) == 2
    err = capsys.readouterr().err
    assert "you are in no team with id 8" in err and "remembered from your last --team" in err
    assert "--team alice for your own bots" in err and not logged_in.seen("POST", "/api/bots/")


def test_a_name_taken_by_your_teams_bot_says_to_pass_its_team(logged_in: FakeSite,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    logged_in.teams.append({"id": 2, "name": "Red Fleet", "personal": False, "archived": False,
                            "members": [{"username": "alice"}], "join_key": "KEY"})
    logged_in.bots.append({"id": 1, "name": "redbot", "game": "galaxy", "owner": "bob",  # bob made it
                           "team": {"id": 2, "name": "Red Fleet"}, "description": "", "active_version": None,
                           "retired": False})
    # your own team (personal) chosen: the bot is the team's, said with how to upload to it
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "redbot", "--team", "alice"]) == 2
    err = capsys.readouterr().err
    assert ("the bot redbot is one of your team Red Fleet's bots, not your own bots: pass --team 'Red Fleet' (or "
            "leave --team out) to upload to it") in err
    assert not logged_in.seen("POST", "/api/bots/1/versions/")
    assert config.default_team() is None  # a refused --team is not remembered
    # without --team, it goes to the team's bot
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "redbot", "--no-wait"]) == 0
    assert len(logged_in.seen("POST", "/api/bots/1/versions/")) == 1 and not logged_in.seen("POST", "/api/bots/")


def test_a_remembered_team_does_not_stop_an_upload_to_your_own_bot(logged_in: FakeSite,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A competitor's trial: after `submit fleetbot --team "Red Fleet"`, `armada submit alicebot` (a bot of
    the personal team) was refused: "the bot alicebot belongs to another team (alice), not Red Fleet"."""
    logged_in.teams.append({"id": 2, "name": "Red Fleet", "personal": False, "archived": False,
                            "members": [{"username": "alice"}], "join_key": "KEY"})
    logged_in.bots.append({"id": 1, "name": "alicebot", "game": "galaxy", "owner": "alice",
                           "team": {"id": 1, "name": "alice"}, "description": "", "active_version": None,
                           "retired": False})
    config.save_default_team("id:2")
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "alicebot", "--no-wait"]) == 0
    err = capsys.readouterr().err
    assert ("the bot alicebot is one of your own bots, not team Red Fleet's (remembered from your last --team): "
            "uploading to it") in err
    assert len(logged_in.seen("POST", "/api/bots/1/versions/")) == 1 and not logged_in.seen("POST", "/api/bots/")
    assert config.default_team() == "id:2"  # still the default for new bots


def test_a_bot_of_a_team_you_left_is_named_as_such(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """A competitor's trial: a removed member's `armada submit fleetbot` said the name was taken and
    to pass --bot, not that the bot is a team's the member is no longer in."""
    logged_in.bots.append({"id": 1, "name": "fleetbot", "game": "galaxy", "owner": "alice",
                           "team": {"id": 2, "name": "Red Fleet"}, "description": "", "active_version": None,
                           "retired": False})
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "fleetbot", "--no-wait"]) == 2
    assert ("the bot fleetbot is team Red Fleet's, a team you are not in: pass --bot NAME for a bot of your own"
            in capsys.readouterr().err)
    assert not logged_in.seen("POST", "/api/bots/1/versions/") and not logged_in.seen("POST", "/api/bots/")


def test_a_team_named_with_digits_is_found_by_its_name_then_by_id(logged_in: FakeSite,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`armada team create 123` worked, then `team show 123` said "no team with id 123"; and
    `submit --team 8` refused the id `team show` prints."""
    assert main(["team", "create", "123"]) == 0
    capsys.readouterr()
    assert main(["team", "show", "123"]) == 0  # by its name (its id is 2)
    assert "123" in capsys.readouterr().out
    assert main(["team", "leave", "123"]) == 0
    assert logged_in.seen("POST", "/api/teams/2/leave/")
    assert main(["team", "show", "id:1"]) == 0  # an id whatever the names
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "crewbot", "--team", "2",
                 "--no-wait"]) == 0  # not a name of yours: the id
    assert logged_in.seen("POST", "/api/bots/")[0].json()["team"] == 2


def test_your_username_is_your_personal_team_whatever_its_name(logged_in: FakeSite,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A competitor's trial: alice's personal team was named `alice-2` (a team `Alice` existed when
    she signed up, D-S-7) and she had joined `Alice`; `--team alice`, which the docs and the hint
    give for her own bots, matched `Alice` (names match in any case) and made her bot that team's,
    where it can never leave."""
    logged_in.teams[0]["name"] = "alice-2"
    logged_in.teams.append({"id": 2, "name": "Alice", "personal": False, "archived": False,
                            "members": [{"username": "bob"}, {"username": "alice"}], "join_key": "KEY"})
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "mine", "--team", "alice",
                 "--no-wait"]) == 0
    created = logged_in.seen("POST", "/api/bots/")[0].json()
    assert created.get("team") in (None, 1)  # her own, not team 2
    assert "in team Alice" not in capsys.readouterr().out
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "theirs", "--team", "id:2",
                 "--no-wait"]) == 0  # the shared team by its id
    assert logged_in.seen("POST", "/api/bots/")[1].json()["team"] == 2
    # `armada team show alice` is her own team too, as for submit (a trial: "you are in no team named")
    assert main(["team", "show", "alice"]) == 0
    assert "team alice-2 (id 1)" in capsys.readouterr().out
    assert main(["team", "show", "ALICE-2"]) == 0 and "team alice-2 (id 1)" in capsys.readouterr().out
    assert main(["team", "leave", "Alice"]) == 0  # a personal team is never left: the shared one (a review)
    assert logged_in.seen("POST", "/api/teams/2/leave/") and not logged_in.seen("POST", "/api/teams/1/leave/")


def test_armada_team_alone_lists_your_teams(logged_in: FakeSite, capsys: pytest.CaptureFixture[str]) -> None:
    """A new competitor's trial: the README lists `armada team`, which alone failed with argparse's
    "the following arguments are required: action"; it shows your teams, as `armada team show`."""
    assert main(["team"]) == 0
    assert "alice (personal)" in capsys.readouterr().out



@pytest.mark.parametrize("listed", [
    {"name": "oddbot", "game": "galaxy"},  # no id
    {"id": None, "name": "oddbot", "game": "galaxy"},
    {"id": 1, "name": "oddbot", "game": "galaxy", "team": {"id": [2], "name": "x"}},  # an id that is no id
])
def test_an_odd_bot_list_is_one_line_not_a_traceback(logged_in: FakeSite, capsys: pytest.CaptureFixture[str],
                                                      listed: dict) -> None:
    """A review: a bot listed without its id, or with a team id that is a list, raised KeyError or
    TypeError (a traceback) in `armada submit`."""
    logged_in.bots.append({"owner": "bob", "description": "", "active_version": None, "retired": False, **listed})
    code = main(["submit", "builtin:random", "--game", "galaxy", "--bot", "oddbot", "--no-wait"])
    err = capsys.readouterr().err
    assert code in (2, 3) and "Traceback" not in err and err.startswith("armada: error: ")
    assert not logged_in.seen("POST", "/api/bots/1/versions/")
