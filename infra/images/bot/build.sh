#!/usr/bin/env bash
# Build the bot image armada/bot:latest (Debian bookworm, Python 3.11, numpy, the armada SDK,
# user bot uid 10001). Self-contained; `make bot-image` calls it. See docs/sandbox.md.
#
# Cached: the image carries the label armada.inputs = sha256 of the Dockerfile, wheels.txt and
# the SDK sources; when the current image has the same hash nothing is rebuilt.
#
# Environment:
#   FORCE=1                 rebuild even when the hash matches
#   ARMADA_BOT_IMAGE        tag to build (default armada/bot:latest)
#   ARMADA_DEBIAN_MIRROR    mirror for debootstrap (default: the host's own apt source)
#   PYTHON                  host Python used to build the SDK wheel (default .venv/bin/python)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
TAG="${ARMADA_BOT_IMAGE:-armada/bot:latest}"
REGISTRY_BASE="debian:bookworm-slim"
LOCAL_BASE="armada/debian-base:bookworm"
# The host's apt configuration names the Debian mirror this machine reaches; use the same one.
host_mirror() {
    local files=(/etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list)
    grep -hoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' "${files[@]}" 2>/dev/null \
        | grep -oE 'https?://[^ ]+' | head -1
}
MIRROR="${ARMADA_DEBIAN_MIRROR:-$(host_mirror || true)}"
SECURITY_MIRROR="${MIRROR%/debian}/debian-security"
BUILD="$HERE/build"

say() { printf '[bot-image] %s\n' "$*"; }
die() { printf '[bot-image] ERROR: %s\n' "$*" >&2; exit 1; }

if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
command -v docker >/dev/null || die "docker is not installed"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (start dockerd)"

HASH="$("$PYTHON" "$ROOT/sandbox/armada_sandbox/_image.py" hash "$ROOT")"
CURRENT="$(docker image inspect "$TAG" --format '{{ index .Config.Labels "armada.inputs" }}' 2>/dev/null || true)"
say "inputs hash ${HASH:0:16} (Dockerfile, wheels.txt, SDK sources); image $TAG has ${CURRENT:0:16}"
if [[ "$HASH" == "$CURRENT" && -z "${FORCE:-}" ]]; then
    say "$TAG is up to date: nothing to do (FORCE=1 rebuilds)"
    exit 0
fi

# 1. The base image: the registry's debian:bookworm-slim if we have it or can pull it, else a
#    local debootstrap (minbase) imported as $LOCAL_BASE, built once and kept.
registry_reachable() {
    # A configured registry mirror, or a pull of the base that succeeds within 30 s.
    if [[ -n "$(docker info --format '{{ range .RegistryConfig.Mirrors }}{{ . }}{{ end }}' 2>/dev/null)" ]]; then
        return 0
    fi
    timeout 30 docker pull -q "$REGISTRY_BASE" >/dev/null 2>&1
}

choose_base() {
    if docker image inspect "$REGISTRY_BASE" >/dev/null 2>&1; then
        BASE="$REGISTRY_BASE"; say "base: $BASE (already present)"; return
    fi
    if ! registry_reachable; then
        say "no registry answers (neither Docker Hub nor a configured mirror)"
    elif say "a registry answers: pulling $REGISTRY_BASE" && timeout 300 docker pull -q "$REGISTRY_BASE" >/dev/null 2>&1; then
        BASE="$REGISTRY_BASE"; say "base: $BASE (pulled)"; return
    fi
    if docker image inspect "$LOCAL_BASE" >/dev/null 2>&1; then
        BASE="$LOCAL_BASE"; say "no registry: base $BASE (local, already built)"; return
    fi
    command -v debootstrap >/dev/null || die "no registry and no debootstrap: install debootstrap"
    [[ -n "$MIRROR" ]] || die "no Debian mirror found in /etc/apt: set ARMADA_DEBIAN_MIRROR"
    [[ "$(id -u)" == 0 ]] || die "debootstrap needs root to make $LOCAL_BASE"
    local rootfs
    rootfs="$(mktemp -d /tmp/armada-rootfs.XXXXXX)"
    trap 'rm -rf "$rootfs"' EXIT
    say "no registry: debootstrap --variant=minbase bookworm from $MIRROR (a few minutes, once)"
    debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >/tmp/armada-debootstrap.log 2>&1 \
        || die "debootstrap failed; see /tmp/armada-debootstrap.log"
    cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY_MIRROR bookworm-security main
SOURCES
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
    say "importing the root filesystem as $LOCAL_BASE"
    tar -C "$rootfs" --numeric-owner -c . \
        | docker import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' - "$LOCAL_BASE" >/dev/null
    rm -rf "$rootfs"
    trap - EXIT
    BASE="$LOCAL_BASE"
    say "base: $BASE (made with debootstrap)"
}
choose_base

# 2. The build context: Dockerfile plus wheels built on the host (no PyPI inside the build).
rm -rf "$BUILD"
mkdir -p "$BUILD/wheels"
cp "$HERE/Dockerfile" "$BUILD/Dockerfile"
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
say "wheels: $(cd "$BUILD/wheels" && ls | tr '\n' ' ')"

# 3. Build (host network so apt inside the build reaches the Debian mirror) and label.
say "docker build $TAG from $BASE"
docker build --network host --pull=false --build-arg "BASE=$BASE" \
    --label "armada.inputs=$HASH" --label "armada.base=$BASE" \
    --label "armada.built=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    -t "$TAG" "$BUILD"

# 4. Smoke test with the sandbox's own restrictions, then drop old untagged builds.
say "smoke test: import armada and numpy as user bot, no network, read-only root"
docker run --rm --network none --read-only --cap-drop ALL "$TAG" \
    python3 -c "import os, armada, numpy; assert os.getuid() == 10001; print('ok: uid', os.getuid(), 'numpy', numpy.__version__)"
docker image prune -f --filter "label=armada.inputs" >/dev/null || true
say "done: $TAG ($(docker image inspect "$TAG" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}'))"
