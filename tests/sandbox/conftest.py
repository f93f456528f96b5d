"""Fixtures of the sandbox tests: a Docker engine and the bot image are required.

Locally a missing engine or image skips (with the reason); under CI=true both fail.
Every container a test creates is labelled `armada.test=<RUN_ID>` so leftovers are found.
"""

from __future__ import annotations

import uuid
import warnings
from typing import Any

import pytest

from tests.services import in_ci, missing, require_docker

RUN_ID = uuid.uuid4().hex[:12]


def run_labels(**extra: str) -> dict[str, str]:
    """Labels for containers of this test run."""
    return {"armada.match": f"test-{RUN_ID}", "armada.test": RUN_ID, **extra}


@pytest.fixture(scope="session")
def docker_client() -> Any:
    """The Docker SDK client, once the engine answers and the bot image is present."""
    require_docker()
    from armada_sandbox.docker_bot import docker_client as shared_client
    from armada_sandbox.image import image_status

    client = shared_client()
    status = image_status(client)
    if not status.present:
        missing(status.problem() or "bot image missing")
    elif not status.fresh:
        if in_ci():
            pytest.fail(status.problem() or "bot image stale", pytrace=False)
        warnings.warn(status.problem() or "bot image stale", stacklevel=1)
    return client


@pytest.fixture(scope="session", autouse=True)
def no_leftover_containers() -> Any:
    """After the whole run, no container of this run may exist."""
    yield
    from tests.services import docker_problem

    if docker_problem():
        return
    from armada_sandbox.docker_bot import docker_client as shared_client

    left = shared_client().containers.list(all=True, filters={"label": f"armada.test={RUN_ID}"})
    assert not left, f"containers left behind: {[c.name for c in left]}"
