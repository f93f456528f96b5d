"""Checks of the application image (run by armada-app, the entrypoint).

`checks.py web`: the web container's health check. It asks the site's own /healthz over plain
HTTP (with a host name the site accepts; /healthz is exempt from the HTTPS redirect) and passes
when every check of the container's role passes (ARMADA_HEALTH_CHECKS: compose gives the web
container database,redis,storage; the Docker engine is the workers' to check).

`checks.py sandbox`: run before a worker starts. Its bots run in containers of the host's
engine, which bind-mounts their folders by host path, so ARMADA_SANDBOX_DIR must be a host
folder mounted at the same path in this container; it fails with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def web() -> int:
    port = os.environ.get("PORT") or "8000"
    hosts = [h.strip() for h in (os.environ.get("ALLOWED_HOSTS") or "").split(",") if h.strip()]
    host = next((h.lstrip(".") for h in hosts if h != "*"), "localhost")
    request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        if 300 <= exc.code < 400:
            print(f"/healthz redirects ({exc.code} to {exc.headers.get('Location')}): it should be exempt from "
                  "the HTTPS redirect (SECURE_REDIRECT_EXEMPT)")
            return 1
        body = exc.read()
    except OSError as exc:
        print(f"the site does not answer on port {port}: {exc}")
        return 1
    try:
        checks = json.loads(body)["checks"]
    except (ValueError, KeyError, TypeError):
        print(f"/healthz answered something else than its report: {body[:200]!r}")
        return 1
    failed = {name: check.get("detail") for name, check in checks.items() if not check.get("ok")}
    for name, detail in failed.items():
        print(f"{name}: {detail}")
    if not failed:
        print("ok: " + ", ".join(checks))
    return 1 if failed else 0


def sandbox() -> int:
    folder = os.environ.get("ARMADA_SANDBOX_DIR") or ""
    if not folder.startswith("/"):
        print("ARMADA_SANDBOX_DIR is not set to an absolute path: mount one host folder at the same path "
              "(-v /var/lib/armada/sandbox:/var/lib/armada/sandbox) and name it in ARMADA_SANDBOX_DIR")
        return 1
    import docker
    from docker.errors import DockerException, NotFound

    try:
        client = docker.from_env(timeout=10)
        client.ping()
    except DockerException as exc:
        print(f"the Docker engine does not answer ({exc}): mount the host's /var/run/docker.sock")
        return 1
    try:
        me = client.containers.get(own_id())
    except NotFound:  # DOCKER_HOST names an engine this container is not on
        print(f"note: this container is not one of its engine's: the mount of {folder} is not checked")
        return 0
    mounts = sorted(me.attrs.get("Mounts") or [], key=lambda m: len(m.get("Destination", "")), reverse=True)
    for mount in mounts:  # the innermost mount holding the folder decides
        target = mount.get("Destination", "").rstrip("/")
        if target and (folder == target or folder.startswith(target + "/")):
            if mount.get("Type") == "bind" and mount.get("Source") == target:
                return 0
            print(f"{target} is mounted from {mount.get('Source')} ({mount.get('Type')}): the bots' containers "
                  f"would not see the worker's files; mount the host folder {target} at the same path")
            return 1
    print(f"{folder} is not mounted from the host: mount it at the same path (-v {folder}:{folder})")
    return 1


def own_id() -> str:
    """This container's id, from the engine's mount of /etc/hostname (a file of the container's
    folder, `.../containers/<id>/hostname`): it holds with any host name, also the machine's own
    under `network_mode: host`; else the host name (the engine's default, the id's start)."""
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            if len(fields) > 4 and fields[4] == "/etc/hostname":
                found = re.search(r"/containers/([0-9a-f]{64})/", fields[3])
                if found:
                    return found.group(1)
    except OSError:
        pass
    return socket.gethostname()


if __name__ == "__main__":
    checks = {"web": web, "sandbox": sandbox}
    if len(sys.argv) != 2 or sys.argv[1] not in checks:
        print(f"usage: checks.py {'|'.join(checks)}", file=sys.stderr)
        sys.exit(2)
    sys.exit(checks[sys.argv[1]]())
