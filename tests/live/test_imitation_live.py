"""The worked path from data to a ranked model (issue 25, docs/imitation.md), end to end on a live site.

Two demo bots play ranked matches on the live site's match worker; then, as a competitor would,
with the CLI as separate processes: `armada dataset download` fetches their replays,
`armada new --starter imitation` makes the bot folder, its train.py trains for seconds on that
tiny dataset and exports model.onnx, `armada submit` uploads the folder (validated in the bot
image: onnxruntime loads the model at start-up) and matchmaking gives the new version a ranked
game, which it plays to the end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.live.test_cli_live import PASSWORD, WAIT_S, Cli, _demo_bot
from tests.live.test_matches_live import wait_match

pytestmark = [pytest.mark.docker, pytest.mark.redis, pytest.mark.slow, pytest.mark.timeout(900)]


def _ranked_until(site: Any, wanted: int | None = None, rounds: int = 6) -> list[Any]:
    """Ranked matches made by matchmaking and played by the worker, round after round, until one has
    version `wanted` (any finished match when None); every match made is finished."""
    from armada_web.ladder.matchmaking import fill_queue
    from armada_web.matches.models import Participant

    played = []
    for _round in range(rounds):
        for match_id in fill_queue(workers=1):
            match = wait_match(match_id, ("finished", "void", "failed"), seconds=WAIT_S)
            assert match.status == "finished", (match.reason, site.log("worker-matches")[-3000:])
            played.append(match)
            versions = set(Participant.objects.filter(match=match).values_list("version_id", flat=True))
            if wanted is None or wanted in versions:
                return played
    raise AssertionError(f"no ranked match of version {wanted} in {rounds} rounds: {played}")


def test_replays_to_a_trained_bot_that_plays_a_ranked_game(live_site: Any, tmp_path: Path) -> None:
    from armada_web.bots.models import BotVersion
    from armada_web.matches.models import Participant

    suffix = uuid.uuid4().hex[:6]
    _demo_bot(live_site, f"demo-a-{suffix}", f"greedy-{suffix}", "greedy")  # valid without their validation
    _demo_bot(live_site, f"demo-b-{suffix}", f"prober-{suffix}", "prober")
    _ranked_until(live_site)

    cli = Cli(tmp_path / "xdg", live_site.url.rstrip("/"))
    username = f"learner-{suffix}"
    live_site.create_user(username, PASSWORD)
    assert cli.login(username, PASSWORD).returncode == 0
    data = tmp_path / "replays"
    fetched = cli.run("dataset", "download", "--game", "galaxy", "--limit", "4", str(data))
    assert fetched.returncode == 0, (fetched.stdout, fetched.stderr)
    rows = [json.loads(line) for line in (data / "manifest.jsonl").read_text().splitlines()]
    assert rows and all((data / row["file"]).is_file() for row in rows)

    made = cli.run("new", "learner", "--game", "galaxy", "--starter", "imitation", "--dir", str(tmp_path))
    assert made.returncode == 0, made.stderr
    folder = tmp_path / "learner"
    trained = subprocess.run([sys.executable, str(folder / "train.py"), str(data), "--epochs", "2"],
                             capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert (folder / "model.onnx").is_file(), trained.stdout

    name = f"learner-{suffix}"
    submitted = cli.run("submit", str(folder), "--bot", name, "--timeout", str(WAIT_S))  # the game: armada.json
    assert submitted.returncode == 0, (submitted.stdout, submitted.stderr, live_site.log("worker")[-3000:])
    assert f"{name} version 1: valid" in submitted.stdout.splitlines()
    version = BotVersion.objects.get(bot__name=name)
    assert version.status == "valid"

    (match, *_) = _ranked_until(live_site, wanted=version.pk)[-1:]
    assert match.kind == "ranked" and match.status == "finished"
    mine = Participant.objects.get(match=match, version=version)
    assert mine.status == "ok", (mine.status, live_site.log("worker-matches")[-3000:])
