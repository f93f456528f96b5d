"""The environment of the test suite's Chromium: it must not notice Docker's network changes.

Tests that start containers, Compose stacks or a second Docker engine add and remove network
interfaces while other tests' pages load; Chromium then aborts their requests with
net::ERR_NETWORK_CHANGED (a page's script missing, a fetch failing). `no_netlink.c`, built here
once per worker and preloaded, keeps Chromium from watching those changes; the site under test
is on 127.0.0.1, which none of them touch.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.support.services import missing

SOURCE = Path(__file__).with_name("no_netlink.c")


def chromium_env(build_dir: Path) -> dict[str, str]:
    """This process's environment with the shim preloaded (compiled into `build_dir`)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        missing("no C compiler for tests/support/no_netlink.c (Debian packages gcc and libc6-dev; infra/install.sh)")
    library = build_dir / "no_netlink.so"
    built = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(library), str(SOURCE), "-ldl"],
                           capture_output=True, text=True)
    if built.returncode != 0:
        missing(f"tests/support/no_netlink.c did not compile: {built.stderr.strip()[-500:]}")
    preload = " ".join(filter(None, [str(library), os.environ.get("LD_PRELOAD", "")]))
    return {**os.environ, "LD_PRELOAD": preload}
