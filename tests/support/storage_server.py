"""moto's standalone S3 server for tests: a real HTTP endpoint on loopback, not an in-process mock.

`MotoServer` runs `python -m moto.server` as a subprocess on a free 127.0.0.1 port (its log in a
file) and `bucket()` makes a fresh bucket on it. The fixtures (tests/conftest.py): `moto_server`,
one server per test session (per xdist worker), and `s3_bucket`, a new bucket of that server for
each test, as an `S3Bucket` holding the endpoint, the bucket's name and the credentials, with
`env()` giving the site's variables (ARMADA_S3_BUCKET, ARMADA_S3_ENDPOINT_URL, AWS_*).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.localsite import free_port

#: moto accepts any credentials; these are what the site and boto3 are given.
ACCESS_KEY = "armada-test-key"
SECRET_KEY = "armada-test-secret"
REGION = "us-east-1"


@dataclass(frozen=True)
class S3Bucket:
    """One bucket on the test S3 server, and how to reach it."""

    endpoint_url: str
    name: str
    access_key: str = ACCESS_KEY
    secret_key: str = SECRET_KEY
    region: str = REGION

    def env(self) -> dict[str, str]:
        """The environment variables that point the site at this bucket."""
        return {"ARMADA_S3_BUCKET": self.name, "ARMADA_S3_ENDPOINT_URL": self.endpoint_url,
                "AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key,
                "AWS_DEFAULT_REGION": self.region}

    def client(self) -> Any:
        """A boto3 S3 client of the server."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint_url, aws_access_key_id=self.access_key,
                            aws_secret_access_key=self.secret_key, region_name=self.region)


class MotoServer:
    """`python -m moto.server` on 127.0.0.1:<free port>, logging to FOLDER/moto.log."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / "moto.log"
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                         stdout=log, stderr=subprocess.STDOUT)
        try:
            self._wait(30.0)
        except BaseException:
            self.stop()
            raise

    def _wait(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"moto's server exited ({self.proc.returncode}): {self.log()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"moto's server did not listen within {seconds:g} s: {self.log()[-2000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def bucket(self, prefix: str = "armada-test") -> S3Bucket:
        """A new, empty bucket."""
        bucket = S3Bucket(self.endpoint_url, f"{prefix}-{uuid.uuid4().hex[:12]}")
        bucket.client().create_bucket(Bucket=bucket.name)
        return bucket

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
