"""`check_ready()`: the one check of the engine and the bot image (the platform's and the CLI's)."""

from __future__ import annotations

import io
import re
import uuid

import docker
import pytest

from armada.referee.connection import Unavailable
from armada_sandbox import BOT_IMAGE, SandboxUnavailable, check_ready
from tests.sandbox.conftest import RUN_ID

DEAD = "unix:///nonexistent/docker.sock"


def test_a_running_engine_with_the_image_is_ready(docker_client):
    detail = check_ready()  # its own client, from the environment
    assert detail.startswith("docker ") and f"bot image {BOT_IMAGE} present" in detail
    assert check_ready(client=docker_client).split(" present")[0] == detail.split(" present")[0]


def test_a_dead_engine_is_unavailable_with_its_address(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", DEAD)
    with pytest.raises(SandboxUnavailable, match=re.escape(f"the Docker engine is not reachable at {DEAD}")) as raised:
        check_ready()
    assert isinstance(raised.value, Unavailable)  # the SDK's type: play_match lets it out


def test_a_client_whose_engine_went_away_is_unavailable():
    client = docker.DockerClient(base_url=DEAD, version="1.41", timeout=2)  # no request until asked
    with pytest.raises(SandboxUnavailable, match="the Docker engine did not answer"):
        check_ready(client=client)


def test_a_missing_image_is_unavailable_with_the_tag_and_the_fix(docker_client):
    with pytest.raises(SandboxUnavailable, match=r"bot image armada/no-such-image:missing is missing; build it with "
                                                 r"`ARMADA_BOT_IMAGE=armada/no-such-image:missing make bot-image`"):
        check_ready("armada/no-such-image:missing", client=docker_client)


def test_a_stale_image_is_ready_but_named_and_reported(docker_client):
    """An image built from other SDK sources still runs bots: the caller hears of it (on_stale)."""
    tag = f"armada/test-stale:{RUN_ID}-{uuid.uuid4().hex[:6]}"
    dockerfile = f"FROM {BOT_IMAGE}\nLABEL armada.inputs=built-from-other-sources armada.test={RUN_ID}\n"
    docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, network_mode="none")
    try:
        heard: list[str] = []
        detail = check_ready(tag, client=docker_client, on_stale=heard.append)
        assert detail.endswith(f"bot image {tag} present but older than the SDK sources")
        assert heard == [f"bot image {tag} is older than the SDK sources; build it with `ARMADA_BOT_IMAGE={tag} "
                         "make bot-image` (infra/images/bot/build.sh)"]
    finally:
        docker_client.images.remove(tag, force=True)
