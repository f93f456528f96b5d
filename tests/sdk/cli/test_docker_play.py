"""`armada play --sandbox docker`: the same match, each bot in its hardened container."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from armada.cli.main import main
from tests.sdk.cli.bots import without_time
from tests.services import require_docker

pytestmark = pytest.mark.docker


def test_play_in_docker_with_builtin_and_zip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_docker()
    from armada.botspec import starters_dir

    bot_zip = tmp_path / "mine.zip"
    with zipfile.ZipFile(bot_zip, "w") as zf:
        zf.write(starters_dir("galaxy") / "random.py", "mine/main.py")
    code = main(["play", "builtin:greedy", str(bot_zip), "--sandbox", "docker", "--seed", "3",
                 "--config", '{"max_turns": 10}', "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    assert [p["status"] for p in result["players"]] == ["ok", "ok"], result
    assert [p["name"] for p in result["players"]] == ["Greedy", "Random"]
    # the same match as local processes gives the same result (GX-23)
    assert main(["play", "builtin:greedy", str(bot_zip), "--seed", "3", "--config", '{"max_turns": 10}',
                 "--json"]) == 0
    assert without_time(json.loads(capsys.readouterr().out)) == without_time(result)
