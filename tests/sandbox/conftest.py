"""Fixtures of the sandbox tests: a Docker engine and the bot image are required.

Locally a missing engine or image skips (with the reason); under CI=true both fail.
Every container a test creates is labelled `armada.test=<RUN_ID>` so leftovers are found.
"""

from __future__ import annotations

import uuid
import warnings
from typing import Any

import pytest

from tests.support.services import in_ci, missing, require_docker

RUN_ID = uuid.uuid4().hex[:12]


def run_labels(**extra: str) -> dict[str, str]:
    """Labels for containers of this test run."""
    return {"armada.match": f"test-{RUN_ID}", "armada.test": RUN_ID, **extra}


@pytest.fixture(scope="session")
def docker_client() -> Any:
    """The Docker SDK client, once the engine answers and the bot image is present (check_ready)."""
    require_docker()
    from armada_sandbox import SandboxUnavailable, check_ready
    from armada_sandbox._engine import docker_client as shared_client

    def stale(problem: str) -> None:
        if in_ci():
            pytest.fail(problem, pytrace=False)
        warnings.warn(problem, stacklevel=1)

    client = shared_client()
    try:
        check_ready(client=client, on_stale=stale)
    except SandboxUnavailable as exc:
        missing(str(exc))
    return client


@pytest.fixture(scope="session", autouse=True)
def no_leftover_containers() -> Any:
    """After the whole run, no container of this run may exist."""
    yield
    from tests.support.services import docker_problem

    if docker_problem():
        return
    from armada_sandbox._engine import docker_client as shared_client

    left = shared_client().containers.list(all=True, filters={"label": f"armada.test={RUN_ID}"})
    assert not left, f"containers left behind: {[c.name for c in left]}"
