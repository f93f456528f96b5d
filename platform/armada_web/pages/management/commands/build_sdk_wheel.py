"""`manage.py build_sdk_wheel`: build the SDK wheel from sdk/ into ARMADA_SDK_DIR for the /sdk/ page.

A wheel built once is kept in the machine's cache (`$XDG_CACHE_HOME/armada/sdk-wheels/HASH/`,
HASH of the SDK's sources), so another data folder or another `make up` of the same sources copies
it instead of building it again; a changed source makes a new HASH."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from armada_web.runtime.config import REPO_ROOT

SDK = Path(REPO_ROOT) / "sdk"


def sources_hash(sdk: Path = SDK) -> str:
    """A hash of what goes into the wheel: the package's files (no caches) and its pyproject.toml."""
    digest = hashlib.sha256()
    files = [sdk / "pyproject.toml", *(path for path in (sdk / "armada").rglob("*")
                                       if path.is_file() and "__pycache__" not in path.parts)]
    for path in sorted(files):
        digest.update(path.relative_to(sdk).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def cache_dir() -> Path:
    """The machine's cache of built wheels (XDG_CACHE_HOME, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "armada" / "sdk-wheels"


def _pip_wheel(into: Path) -> Path:
    """`pip wheel --no-deps sdk` (offline: no build isolation) into the folder `into`, from a copy of
    the sources there: setuptools builds in the source folder (build/, *.egg-info), where two
    builds at once would mix their files."""
    source = into / "sdk"
    shutil.copytree(SDK, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "dist"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(into),
         str(source)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise CommandError(f"pip wheel failed: {done.stderr.strip()[-2000:]}")
    built = sorted(into.glob("armada-*.whl"))
    if not built:
        raise CommandError("pip wheel wrote no armada wheel")
    return built[-1]


def _cached_wheel(folder: Path) -> Path:
    """The wheel of the current sources in the cache `folder`, built into it first if missing
    (built in a temporary folder beside it, then renamed: two builds at once each leave a whole wheel)."""
    if found := sorted(folder.glob("armada-*.whl")):
        return found[-1]
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder))
    try:
        built = _pip_wheel(staging)
        os.replace(built, folder / built.name)
        return folder / built.name
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def build_wheel(out: Path) -> Path:
    """The SDK wheel in `out` (replacing older wheels there), from the cache or built. A cache that
    cannot be written is passed by: the wheel is built in a temporary folder."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            wheel = _cached_wheel(cache_dir() / sources_hash())
        except OSError:
            wheel = _pip_wheel(Path(tmp))
        for old in out.glob("armada-*.whl"):
            old.unlink()
        target = out / wheel.name
        shutil.copyfile(wheel, target)
    return target


class Command(BaseCommand):
    help = "Build the SDK wheel from sdk/ into the data folder (served at /sdk/)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(str(build_wheel(Path(settings.ARMADA_SDK_DIR))))
