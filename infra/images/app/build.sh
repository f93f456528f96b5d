#!/usr/bin/env bash
# Build the application image armada/app:latest (web, worker and beat are its commands; see
# entrypoint.sh and docs/deploy.md). `make app-image` and `make images` call it.
#
# Offline like the bot image: FROM the local Debian base (lib.sh), Python packages from a
# wheelhouse built here on the host with `pip wheel`: the run-time dependencies pinned to the
# versions installed in the venv (inputs.py pins), and the three packages built from the sources.
#
# Cached: the image carries the label armada.inputs (inputs.py hash: this folder, the gunicorn
# settings, manage.py, the packages' sources and pyproject files, the pins); when the current
# image has the same hash nothing is rebuilt. The dependencies' wheels are kept in
# build/deps-<hash of the pins>/ between builds, so a change of our code rebuilds one small layer.
#
# Environment: FORCE=1 rebuilds; ARMADA_APP_IMAGE (default armada/app:latest);
# PYTHON (default .venv/bin/python: the venv whose packages the image gets).
set -euo pipefail
IMAGE_NAME=app-image
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

HERE="$IMAGES_DIR/app"
TAG="${ARMADA_APP_IMAGE:-armada/app:latest}"
BUILD="$HERE/build"

HASH="$("$PYTHON" "$HERE/inputs.py" hash "$ROOT")" || die "could not hash the inputs (run make install first)"
up_to_date "$TAG" "$HASH" && exit 0
choose_base

# 1. The wheelhouse. Dependencies: one wheel per pin, kept per set of pins.
mkdir -p "$BUILD"
pins="$("$PYTHON" "$HERE/inputs.py" pins)"
deps="$BUILD/deps-$(printf '%s' "$pins" | sha256sum | cut -c1-16)"
if [[ ! -f "$deps/.complete" ]]; then
    say "building the dependencies' wheels ($(wc -l <<<"$pins") pins) into ${deps#"$ROOT"/}"
    rm -rf "$BUILD"/deps-*
    mkdir -p "$deps"
    printf '%s\n' "$pins" >"$deps/pins.txt"
    "$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$deps" -r "$deps/pins.txt" 2>"$BUILD/pip.log" \
        || { tail -n 20 "$BUILD/pip.log" >&2; die "pip wheel of the dependencies failed (log: $BUILD/pip.log)"; }
    touch "$deps/.complete"
else
    say "dependencies' wheels: ${deps#"$ROOT"/} (cached)"
fi
# Our three packages, from the sources (offline when setuptools is in the venv).
context="$BUILD/context"
rm -rf "$context"
mkdir -p "$context/wheels/deps" "$context/wheels/app"
cp "$deps"/*.whl "$context/wheels/deps/"
for package in "$ROOT/sdk" "$ROOT/sandbox" "$ROOT"; do
    "$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$context/wheels/app" "$package" \
            2>"$BUILD/pip.log" \
        || "$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$context/wheels/app" "$package" 2>"$BUILD/pip.log" \
        || { tail -n 20 "$BUILD/pip.log" >&2; die "could not build the wheel of $package (log: $BUILD/pip.log)"; }
done
rm -rf "$ROOT/build" "$ROOT/sdk/build" "$ROOT/sandbox/build"
say "our wheels: $(cd "$context/wheels/app" && ls | tr '\n' ' ')"
cp "$HERE/Dockerfile" "$HERE/entrypoint.sh" "$HERE/checks.py" "$ROOT/infra/gunicorn.conf.py" "$context/"

# 2. Build and label.
build_image "$TAG" "$HASH" "$context"

# 3. Smoke test: Django's checks and Celery start, as the unprivileged user.
say "smoke test: manage.py check, celery --version, user"
docker run --rm --network none -e SECRET_KEY="app-image-smoke-test-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
    "$TAG" manage.py check
docker run --rm --network none "$TAG" celery --version
user="$(docker run --rm --network none "$TAG" id -un)"
[[ "$user" == armada ]] || die "the image runs as '$user', not armada"
finish "$TAG"
