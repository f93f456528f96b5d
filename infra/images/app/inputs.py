"""The application image's inputs and their hash (docs/deploy.md, "The images").

`python infra/images/app/inputs.py hash [ROOT]` prints the sha256 that build.sh stores as the
image label `armada.inputs` (it rebuilds only when it changes; the tests compare it with the
built image); `python infra/images/app/inputs.py pins` prints the wheelhouse's pins.
The inputs: this folder's files, the gunicorn settings, manage.py, the three packages'
pyproject.toml and sources, and the exact versions of their run-time dependencies as installed in
the running venv, so the image holds what the tests ran with. Run it with the project's venv.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

# The bot image's hashing (build tooling, like infra/images/bot/build.sh running _image.py).
from armada_sandbox._image import digest_files, source_files

ROOT = Path(__file__).resolve().parents[3]
APP_DIR = "infra/images/app"
#: Names of our own packages, never pinned from the venv (they are built from the sources).
OWN = ("armada", "armada-sandbox", "armada-platform")
#: The image's interpreter (Debian bookworm's python3), for the dependencies' markers.
IMAGE_PYTHON = {"python_version": "3.11", "python_full_version": "3.11.2"}


def input_files(root: Path = ROOT) -> list[Path]:
    """Every file the image is built from (sorted, relative to `root`), besides the pins."""
    own = [rel for rel in source_files(root, APP_DIR) if "build" not in rel.parts]
    return [*own, Path("infra/gunicorn.conf.py"), Path("manage.py"),
            Path("pyproject.toml"), Path("sdk/pyproject.toml"), Path("sandbox/pyproject.toml"),
            *source_files(root, "sdk/armada"), *source_files(root, "sandbox/armada_sandbox"),
            *source_files(root, "platform/armada_web")]


def pins() -> str:
    """One requirement a line for every distribution the site needs at run time in the image: the
    dependency closure of armada-platform (extras followed, markers evaluated for the image's
    Python), pinned to the version installed in this interpreter's environment; one the venv
    lacks (a marker true only for the image's Python) keeps its requirement's own specifier.
    Our own three packages are left out (they are built from the sources)."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wanted: dict[str, set[str]] = {}
    absent: dict[str, str] = {}
    todo: list[tuple[str, set[str]]] = [("armada-platform", set())]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if key in wanted and extras <= wanted[key]:
            continue
        wanted.setdefault(key, set()).update(extras)
        for raw in metadata.distribution(key).requires or []:
            req = Requirement(raw)
            if req.marker is not None and not any(req.marker.evaluate({**IMAGE_PYTHON, "extra": extra})
                                                  for extra in {"", *wanted[key]}):
                continue
            try:
                metadata.distribution(req.name)
            except metadata.PackageNotFoundError:
                absent[canonicalize_name(req.name)] = f"{req.name}{req.specifier}"
                continue
            todo.append((req.name, set(req.extras)))
    lines = [f"{(dist := metadata.distribution(key)).metadata['Name']}=={dist.version}"
             for key in sorted(wanted) if key not in OWN]
    return "\n".join(sorted([*lines, *absent.values()], key=str.lower)) + "\n"


def inputs_hash(root: Path = ROOT) -> str:
    """sha256 over the input files and the pins."""
    files = digest_files(root, input_files(root), what="app image")
    return hashlib.sha256(f"{files}\0{pins()}".encode()).hexdigest()


def main(argv: list[str]) -> int:
    if argv[:1] == ["hash"]:
        print(inputs_hash(Path(argv[1]).resolve() if len(argv) > 1 else ROOT))
        return 0
    if argv[:1] == ["pins"]:
        sys.stdout.write(pins())
        return 0
    print("usage: inputs.py hash [ROOT] | pins", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
