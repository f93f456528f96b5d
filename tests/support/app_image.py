"""The application image for tests: its tag, its inputs hash (infra/images/app/inputs.py) and
`require_app_image()`, which skips locally (fails under CI) when the image is missing, and warns
locally (fails under CI) when it is older than the sources."""

from __future__ import annotations

import functools
import importlib.util
import os
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.services import in_ci, missing, require_docker

ROOT = Path(__file__).resolve().parents[2]
APP_IMAGE = os.environ.get("ARMADA_APP_IMAGE") or "armada/app:latest"
HINT = "build it with `make app-image` (infra/images/app/build.sh)"


@functools.cache
def inputs() -> ModuleType:
    """infra/images/app/inputs.py as a module (infra/ is no package)."""
    spec = importlib.util.spec_from_file_location("armada_app_inputs", ROOT / "infra/images/app/inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def require_app_image() -> Any:
    """The Docker client once the engine answers and the app image is there (fresh, under CI)."""
    require_docker()
    from docker.errors import ImageNotFound

    from armada_sandbox._engine import docker_client

    client = docker_client()
    try:
        image = client.images.get(APP_IMAGE)
    except ImageNotFound:
        missing(f"app image {APP_IMAGE} is missing; {HINT}")
    built = (image.attrs["Config"].get("Labels") or {}).get("armada.inputs")
    if built != inputs().inputs_hash(ROOT):
        problem = f"app image {APP_IMAGE} is older than the sources; {HINT}"
        if in_ci():
            pytest.fail(problem, pytrace=False)
        warnings.warn(problem, stacklevel=2)
    return client
