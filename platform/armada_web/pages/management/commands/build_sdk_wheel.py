"""`manage.py build_sdk_wheel`: build the SDK wheel from sdk/ into ARMADA_SDK_DIR for the /sdk/ page."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from armada_web.runtime.config import REPO_ROOT


def build_wheel(out: Path) -> Path:
    """`pip wheel --no-deps sdk` (offline: no build isolation) into `out`, replacing older wheels."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", tmp,
             str(Path(REPO_ROOT) / "sdk")], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CommandError(f"pip wheel failed: {done.stderr.strip()[-2000:]}")
        built = sorted(Path(tmp).glob("armada-*.whl"))
        if not built:
            raise CommandError("pip wheel wrote no armada wheel")
        for old in out.glob("armada-*.whl"):
            old.unlink()
        target = out / built[-1].name
        target.write_bytes(built[-1].read_bytes())
        return target


class Command(BaseCommand):
    help = "Build the SDK wheel from sdk/ into the data folder (served at /sdk/)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(str(build_wheel(Path(settings.ARMADA_SDK_DIR))))
