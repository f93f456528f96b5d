"""A second Docker engine on this machine for tests of many worker hosts (infra/dockerd-second.sh).

    with SecondEngine("host2") as engine:      # started, the bot image loaded into it
        client = engine.client()               # a docker-py client of that engine
        env = {"DOCKER_HOST": engine.docker_host}  # for a worker process of the "second host"
        engine.kill()                          # the host dies: containers, shims, containerd, dockerd
    # leaving the block stops it and removes its run folder, mounts and cgroups

Each name is an engine of its own; its data root (/var/lib/armada-dockerd/NAME) stays between
runs so that the image is loaded once; an engine named for one run is purged at its end (a new one
starts from the kept copy of the images, infra/dockerd-second.sh). Needs root and dockerd;
`require_second_engine()` skips locally (fails under CI) without them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.services import missing, require_docker

SCRIPT = Path(__file__).resolve().parents[2] / "infra" / "dockerd-second.sh"


def require_second_engine() -> None:
    require_docker()
    if os.getuid() != 0:
        missing("a second Docker engine needs root")
    if not (shutil.which("dockerd") or os.access("/usr/sbin/dockerd", os.X_OK)):
        missing("dockerd is not installed (docker.io)")


class SecondEngine:
    """The engine NAME of infra/dockerd-second.sh, started on entering and stopped on leaving."""

    def __init__(self, name: str = "second") -> None:
        self.name = name
        self.run_dir = Path("/run/armada-dockerd") / name
        self.data_root = Path("/var/lib/armada-dockerd") / name
        self.docker_host = f"unix://{self.run_dir}/docker.sock"

    def _script(self, action: str, timeout: float = 300) -> str:
        done = subprocess.run([str(SCRIPT), action, self.name], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"dockerd-second.sh {action} {self.name} failed: {done.stderr.strip()[-2000:]}")
        return done.stdout

    def start(self) -> SecondEngine:
        self._script("start")
        return self

    def stop(self) -> None:
        self._script("stop", timeout=120)

    def purge(self) -> None:
        """Stop it and remove its data root (an engine named for one test run only)."""
        self._script("purge", timeout=180)

    def kill(self) -> None:
        """SIGKILL everything of the engine, its containers' processes included (a host lost)."""
        self._script("kill", timeout=60)

    def client(self, timeout: int = 60) -> Any:
        import docker

        return docker.DockerClient(base_url=self.docker_host, timeout=timeout)

    def daemon_pid(self) -> int | None:
        try:
            pid = int((self.run_dir / "dockerd.pid").read_text())
        except (OSError, ValueError):
            return None
        return pid if Path(f"/proc/{pid}").exists() else None

    def __enter__(self) -> SecondEngine:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
