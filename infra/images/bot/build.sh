#!/usr/bin/env bash
# Build the bot image armada/bot:latest (Debian bookworm, Python 3.11, numpy, PyTorch (CPU),
# scikit-learn, onnxruntime, the armada SDK, user bot uid 10001). Self-contained; `make bot-image` calls it. See docs/sandbox.md.
#
# Cached: the image carries the label armada.inputs = sha256 of the Dockerfile, wheels.txt and
# prebuilt.txt and the SDK sources; when the current image has the same hash nothing is rebuilt.
#
# Environment:
#   FORCE=1                 rebuild even when the hash matches
#   ARMADA_BOT_IMAGE        tag to build (default armada/bot:latest)
#   ARMADA_DEBIAN_MIRROR    mirror for debootstrap (default: the host's own apt source)
#   PYTHON                  host Python used to build the SDK wheel (default .venv/bin/python)
set -euo pipefail
IMAGE_NAME=bot-image
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

HERE="$IMAGES_DIR/bot"
TAG="${ARMADA_BOT_IMAGE:-armada/bot:latest}"
BUILD="$HERE/build"

HASH="$("$PYTHON" "$ROOT/sandbox/armada_sandbox/_image.py" hash "$ROOT")"
up_to_date "$TAG" "$HASH" && exit 0

# 1. The base image (lib.sh): the registry's, or a local debootstrap made once.
choose_base

# 2. The build context: Dockerfile plus wheels built on the host (no PyPI inside the build).
rm -rf "$BUILD"
mkdir -p "$BUILD/wheels"
cp "$HERE/Dockerfile" "$BUILD/Dockerfile"
cp "$ROOT/sdk/armada/threads.py" "$BUILD/_armada_threads.py"  # (see the Dockerfile)
say "building the SDK wheel from sdk/ with $PYTHON"
# Offline first (needs setuptools and wheel on the host); else pip fetches the build backend.
"$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$BUILD/wheels" "$ROOT/sdk" 2>/dev/null \
    || "$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$BUILD/wheels" "$ROOT/sdk" \
    || die "could not build the SDK wheel (install setuptools and wheel for $PYTHON)"
rm -rf "$ROOT/sdk/build"
if grep -qvE '^\s*(#|$)' "$HERE/wheels.txt"; then
    say "building extra wheels from wheels.txt"
    "$PYTHON" -m pip wheel --quiet --wheel-dir "$BUILD/wheels" -r "$HERE/wheels.txt" \
        || die "could not build the wheels of wheels.txt"
fi
if grep -qvE '^\s*(#|$)' "$HERE/prebuilt.txt"; then
    # Wheels for the image's Python (cp311, manylinux x86_64), whatever the host's Python is.
    say "fetching the prebuilt wheels of prebuilt.txt for CPython 3.11 x86_64"
    "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --dest "$BUILD/wheels" \
        --python-version 3.11 --implementation cp --abi cp311 \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -r "$HERE/prebuilt.txt" \
        || die "could not fetch the wheels of prebuilt.txt (pip download needs the package index)"
fi
say "wheels: $(cd "$BUILD/wheels" && ls | tr '\n' ' ')"

# 3. Build and label.
build_image "$TAG" "$HASH" "$BUILD"

# 4. Smoke test with the sandbox's own restrictions, then drop old untagged builds.
say "smoke test: import armada and the ML stack as user bot, no network, read-only root"
docker run --rm --network none --read-only --cap-drop ALL "$TAG" \
    python3 -c "import os, armada, numpy, torch, sklearn, onnxruntime; assert os.getuid() == 10001; print('ok: uid', os.getuid(), 'numpy', numpy.__version__, 'torch', torch.__version__)"
finish "$TAG"
