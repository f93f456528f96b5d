"""The bot image: its tag, the hash of what it is built from, and presence/freshness checks.

`infra/images/bot/build.sh` stores `inputs_hash()` as the image label `armada.inputs` and
skips the build when the current image carries the same hash. This module imports only
the standard library at the top, so the build script can run it as a plain script:
`python3 sandbox/armada_sandbox/_image.py hash`. (`check_ready()` in `_engine` is what
callers use: it asks the engine for `image_status()`.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The bot image's tag unless ARMADA_BOT_IMAGE names another (build.sh reads the same variable).
DEFAULT_BOT_IMAGE = "armada/bot:latest"
BOT_IMAGE = os.environ.get("ARMADA_BOT_IMAGE") or DEFAULT_BOT_IMAGE
BASE_IMAGE = "armada/debian-base:bookworm"
HASH_LABEL = "armada.inputs"
#: The repository root when running from a source checkout (sandbox/armada_sandbox/_image.py).
REPO_ROOT = Path(__file__).resolve().parents[2]
IMAGE_DIR = Path("infra/images/bot")


def build_hint(tag: str) -> str:
    """How to build the bot image `tag` (an operator's trial: `make bot-image` alone builds the default
    tag, not another one the workers were told to use)."""
    given = "" if tag == DEFAULT_BOT_IMAGE else f"ARMADA_BOT_IMAGE={tag} "
    return f"build it with `{given}make bot-image` (infra/images/bot/build.sh)"


def input_files(root: Path = REPO_ROOT) -> list[Path]:
    """Every file the image is built from: Dockerfile, wheel lists, SDK sources (sorted, relative)."""
    return [IMAGE_DIR / "Dockerfile", IMAGE_DIR / "wheels.txt", IMAGE_DIR / "prebuilt.txt", Path("sdk/pyproject.toml"),
            *source_files(root, "sdk/armada")]


def source_files(root: Path, folder: str) -> list[Path]:
    """The files under `root/folder` (sorted, relative to `root`), without bytecode."""
    found = []
    for path in sorted((root / folder).rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and "__pycache__" not in rel.parts and path.suffix not in (".pyc", ".pyo"):
            found.append(rel)
    return found


def digest_files(root: Path, files: list[Path], what: str = "bot image") -> str:
    """sha256 over the names and contents of `files` (relative to `root`); a missing one raises."""
    digest = hashlib.sha256()
    for rel in files:
        path = root / rel
        if not path.is_file():
            raise FileNotFoundError(f"{what} input missing: {path}")
        data = path.read_bytes()
        digest.update(f"{rel.as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def inputs_hash(root: Path = REPO_ROOT) -> str:
    """sha256 over the names and contents of `input_files` (what build.sh stores as a label)."""
    return digest_files(root, input_files(root))


@dataclass(frozen=True)
class ImageStatus:
    """What the engine holds under the bot image tag `tag`."""

    present: bool
    image_id: str | None = None
    built_hash: str | None = None
    source_hash: str | None = None
    tag: str = BOT_IMAGE

    @property
    def fresh(self) -> bool:
        """True when present and built from the current sources (unknown sources count as fresh)."""
        if not self.present:
            return False
        return self.source_hash is None or self.built_hash == self.source_hash

    def problem(self) -> str | None:
        """None when usable and fresh, else one line saying what is wrong and how to fix it."""
        if not self.present:
            return f"bot image {self.tag} is missing; {build_hint(self.tag)}"
        if not self.fresh:
            return f"bot image {self.tag} is older than the SDK sources; {build_hint(self.tag)}"
        return None


def image_status(client: Any = None, tag: str = BOT_IMAGE) -> ImageStatus:
    """Inspect `tag` through the Docker SDK and compare its label with the current sources."""
    # Imported here, not at the top: build.sh runs this file as a script with any python3, which
    # needs no Docker SDK for `hash` (an optional dependency of this file alone).
    import docker
    from docker.errors import ImageNotFound

    client = client or docker.from_env()
    try:
        image = client.images.get(tag)
    except ImageNotFound:
        return ImageStatus(present=False, tag=tag)
    try:
        source: str | None = inputs_hash()
    except FileNotFoundError:  # installed without a source checkout: freshness unknown
        source = None
    labels = image.attrs.get("Config", {}).get("Labels") or {}
    return ImageStatus(present=True, image_id=image.id, built_hash=labels.get(HASH_LABEL), source_hash=source,
                       tag=tag)


#: The SDK's module holding the image's versions (`armada.stack.SERVER`), in a source checkout.
STACK_MODULE = Path("sdk/armada/stack.py")
_GENERATED = re.compile(r"(# -- generated from the bot image[^\n]*\n)(.*?)(# -- end of the generated block --)", re.S)


def image_versions(client: Any = None, tag: str = BOT_IMAGE) -> dict[str, Any]:
    """Python's and the ML stack's versions inside the image `tag` (`python3 -m armada.stack` there)."""
    import docker

    client = client or docker.from_env()
    out = client.containers.run(tag, ["python3", "-m", "armada.stack"], network_mode="none", read_only=True,
                                environment={"HOME": "/tmp"}, tmpfs={"/tmp": "size=4m"}, remove=True,  # noqa: S108
                                stderr=False)
    versions: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return versions


def write_server_versions(versions: dict[str, Any], root: Path = REPO_ROOT) -> bool:
    """Rewrite the generated block of `armada/stack.py` with `versions`; True when it changed."""
    path = root / STACK_MODULE
    text = path.read_text()
    rows = "".join(f"    {json.dumps(k)}: {json.dumps(v)},\n" for k, v in versions.items())
    block = f"SERVER: dict[str, str] = {{\n{rows}}}\n"
    new = _GENERATED.sub(lambda m: m.group(1) + block + m.group(3), text, count=1)
    if new != text:
        path.write_text(new)
    return new != text


def main(argv: list[str]) -> int:
    """`_image.py hash [ROOT]`: print the inputs hash (used by build.sh)."""
    if len(argv) >= 1 and argv[0] == "hash":
        root = Path(argv[1]).resolve() if len(argv) > 1 else REPO_ROOT
        print(inputs_hash(root))
        return 0
    print("usage: _image.py hash [REPO_ROOT]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
