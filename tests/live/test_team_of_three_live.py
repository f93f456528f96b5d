"""Issue 26, "tried as a team of three would", through the CLI against a live site (`live_site`:
a web server process, a validation worker and a match worker on the test's database).

Three people, each with their own `armada login` (their own config folder): one creates the team,
the two others join with its id and key, each uploads (`armada submit --team NAME`, one folder
made by `armada new`) and challenges a teammate's bot, waiting for the result; then one leaves.
The leaver's token no longer reaches the team's sources and logs, the others' still do, and the
leaver's upload and the matches stay. The slow steps (validations, matches) run side by side.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.live.test_cli_live import PASSWORD, WAIT_S, Cli

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(WAIT_S + 120)]


def _api(cli: Cli, path: str) -> tuple[int, Any]:
    """GET `path` with the token `armada login` stored for this CLI: (status, JSON body or None)."""
    token = json.loads(cli.config_file.read_text())["token"]
    request = urllib.request.Request(f"{cli.server}{path}", headers={"Authorization": f"Token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
            kind = response.headers.get("Content-Type", "")
            return response.status, json.loads(body) if kind.startswith("application/json") else None
    except urllib.error.HTTPError as refused:
        return refused.code, None


def _ok(done: Any) -> str:
    assert done.returncode == 0, (done.args, done.stdout, done.stderr)
    return str(done.stdout)


def _all(calls: list[Any]) -> list[Any]:
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_a_team_of_three_creates_joins_uploads_challenges_and_one_leaves(live_site: Any, tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:6]
    names = [f"{who}-{tag}" for who in ("ann", "ben", "cat")]
    clis = [Cli(tmp_path / who, live_site.url.rstrip("/")) for who in names]
    for cli, username in zip(clis, names, strict=True):
        live_site.create_user(username, PASSWORD)
        _ok(cli.login(username, PASSWORD))
    ann, ben, cat = clis

    team_name = f"Trio {tag}"
    created = _ok(ann.run("team", "create", team_name)).splitlines()
    team_id = created[0].rsplit("(id ", 1)[1].rstrip(")")
    key = created[1].split()[2]
    for joiner in (ben, cat):
        assert f"joined team {team_name} (id {team_id})" in _ok(joiner.run("team", "join", team_id, key))

    _ok(ann.run("new", "trio", "--game", "galaxy", "--dir", str(tmp_path)))
    folder = tmp_path / "trio"  # one folder, each member uploads it as their own bot of the team
    bots = [f"trio-{who[:3]}-{tag}" for who in names]
    uploads = _all([lambda c=cli, b=bot: c.submit(folder, b, "--team", team_name)
                    for cli, bot in zip(clis, bots, strict=True)])
    for bot, done in zip(bots, uploads, strict=True):
        assert f"{bot} version 1: valid" in _ok(done), live_site.log("worker")[-3000:]

    # each challenges the next one's bot (ann's bot against ben's, ben's against cat's, cat's against ann's)
    played = _all([lambda c=cli, i=i: c.run("challenge", bots[i], bots[(i + 1) % 3], "--wait", "--timeout",
                                            str(WAIT_S)) for i, cli in enumerate(clis)])
    matches = []
    for done in played:
        lines = _ok(done).splitlines()
        number = lines[0].split()[1]
        assert f"match {number}: finished" in lines, live_site.log("worker-matches")[-3000:]
        matches.append(number)

    team = _api(ann, f"/api/teams/{team_id}/")[1]
    assert sorted(m["username"] for m in team["members"]) == sorted(names)
    versions = {b["name"]: _api(ann, f"/api/bots/{b['id']}/")[1]["active_version"] for b in team["bots"]}
    assert sorted(versions) == sorted(bots) and all(versions.values())

    assert f"left team {team_name}" in _ok(cat.run("team", "leave", team_name))
    assert team_name not in _ok(cat.run("team", "show"))
    cats_version = versions[bots[2]]
    for who, sees in ((cat, False), (ben, True), (ann, True)):
        source, _ = _api(who, f"/api/versions/{cats_version}/source/")
        assert source == (200 if sees else 404)  # 404: as for a version that does not exist
        status, version = _api(who, f"/api/versions/{cats_version}/")
        assert status == 200 and ("log" in version) is sees
        for number in matches:  # each match's bot logs: the team's seats only for its members now
            status, match = _api(who, f"/api/matches/{number}/")
            assert status == 200 and match["status"] == "finished"
            assert all(("log" in p) is sees for p in match["players"])
    team = _api(ann, f"/api/teams/{team_id}/")[1]
    assert sorted(m["username"] for m in team["members"]) == sorted(names[:2])
    assert sorted(b["name"] for b in team["bots"]) == sorted(bots)  # cat's upload stays with the team
    refused = cat.run("challenge", bots[2], bots[0])
    assert refused.returncode == 2 and "not your bot" in refused.stderr
