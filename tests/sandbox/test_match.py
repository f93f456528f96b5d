"""Whole matches through `play_match` with starter bots in the sandbox: same result as processes.

The engines are deterministic and the starters too (seeded by the match), so a match played
with `DockerBot` connections must give the same result and the same replay steps as the
same match with `ProcessBot`s.
"""

from __future__ import annotations

import pytest

from armada.botspec import resolve_bot
from armada.referee.match import play_match
from armada_sandbox import DockerBot, SandboxUnavailable
from tests.sandbox.conftest import run_labels
from tests.sandbox.helpers import container_exists
from tests.sdk.cli.bots import without_time

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def play(game, specs, seed, sandbox, config=None):
    sources = [resolve_bot(spec, game) for spec in specs]
    try:
        if sandbox == "docker":
            bots = {seat: DockerBot(src.code_dir, src.entry, label=src.label,
                                    labels=run_labels(**{"armada.seat": str(seat)}))
                    for seat, src in zip((1, 2), sources, strict=True)}
        else:
            bots = {seat: src.process_connection() for seat, src in zip((1, 2), sources, strict=True)}
        outcome = play_match(game, bots, seed=seed, config=config)
        return outcome, bots
    finally:
        for src in sources:
            src.close()


@pytest.mark.parametrize(
    ("game", "specs", "config"),
    [
        ("mothership", ["builtin:greedy", "builtin:balanced"], None),
        ("mothership", ["builtin:random", "builtin:greedy"], None),
        ("galaxy", ["builtin:greedy", "builtin:prober"], {"max_turns": 60}),
        ("galaxy", ["builtin:random", "builtin:greedy"], {"max_turns": 40}),
    ],
)
def test_docker_match_equals_process_match(docker_client, game, specs, config):
    docker_outcome, docker_bots = play(game, specs, 11, "docker", config)
    process_outcome, _ = play(game, specs, 11, "process", config)
    assert [p.status for p in docker_outcome.players] == ["ok", "ok"], docker_outcome.players
    assert without_time(docker_outcome.summary()) == without_time(process_outcome.summary())
    assert docker_outcome.replay["steps"] == process_outcome.replay["steps"]
    for bot in docker_bots.values():
        assert not container_exists(docker_client, bot.container_id)


def test_a_bot_the_sandbox_cannot_start_is_no_fault_but_sandbox_unavailable(docker_client):
    """Issue 15: a missing image comes out of play_match as SandboxUnavailable (the platform voids
    the match), not as a `crashed` seat; the other seat's container is removed and its slot freed."""
    sources = [resolve_bot(spec, "mothership") for spec in ("builtin:greedy", "builtin:balanced")]
    try:
        missing = DockerBot(sources[0].code_dir, sources[0].entry, image="armada/no-such-image:missing",
                            labels=run_labels(**{"armada.seat": "1"}))
        present = DockerBot(sources[1].code_dir, sources[1].entry, labels=run_labels(**{"armada.seat": "2"}))
        with pytest.raises(SandboxUnavailable, match="bot image armada/no-such-image:missing is missing"):
            play_match("mothership", {1: missing, 2: present}, seed=3)
    finally:
        for src in sources:
            src.close()
    assert present.container_id is not None and not container_exists(docker_client, present.container_id)
    assert present.lease is not None and not present.lease.held
    assert missing.lease is not None and not missing.lease.held
