# Shared by the image build scripts (infra/images/*/build.sh). Source it after setting IMAGE_NAME.
# It finds the repository, the Debian mirror and a base image, and skips a build whose inputs
# hash equals the label of the image already built (docs/deploy.md, "The images").
# shellcheck shell=bash

IMAGES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$IMAGES_DIR/../.." && pwd)"
REGISTRY_BASE="debian:bookworm-slim"
LOCAL_BASE="armada/debian-base:bookworm"
HASH_LABEL="armada.inputs"

say() { printf '[%s] %s\n' "$IMAGE_NAME" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$IMAGE_NAME" "$*" >&2; exit 1; }

if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
command -v docker >/dev/null || die "docker is not installed"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer (start dockerd)"

# The host's apt configuration names the Debian mirror this machine reaches; use the same one.
host_mirror() {
    local files=(/etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list)
    grep -hoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' "${files[@]}" 2>/dev/null \
        | grep -oE 'https?://[^ ]+' | head -1
}
MIRROR="${ARMADA_DEBIAN_MIRROR:-$(host_mirror || true)}"
SECURITY_MIRROR="${MIRROR%/debian}/debian-security"

# up_to_date TAG HASH: true (and says so) when TAG carries HASH and FORCE is unset.
up_to_date() {
    local tag="$1" hash="$2" current
    current="$(docker image inspect "$tag" --format "{{ index .Config.Labels \"$HASH_LABEL\" }}" 2>/dev/null || true)"
    if [[ -n "$current" ]]; then
        say "inputs hash ${hash:0:16}; image $tag has ${current:0:16}"
    else
        say "inputs hash ${hash:0:16}; no image $tag yet (or one without the hash label)"
    fi
    if [[ "$hash" == "$current" && -z "${FORCE:-}" ]]; then
        say "$tag is up to date: nothing to do (FORCE=1 rebuilds)"
        return 0
    fi
    return 1
}

# choose_base: sets BASE to the registry's debian:bookworm-slim if we have it or can pull it,
# else to a local debootstrap (minbase) imported as $LOCAL_BASE, built once and kept.
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
    if docker image inspect "$LOCAL_BASE" >/dev/null 2>&1; then
        BASE="$LOCAL_BASE"; say "base: $BASE (local, already built)"; return
    fi
    if ! registry_reachable; then
        say "no registry answers (neither Docker Hub nor a configured mirror)"
    elif say "a registry answers: pulling $REGISTRY_BASE" && timeout 300 docker pull -q "$REGISTRY_BASE" >/dev/null 2>&1; then
        BASE="$REGISTRY_BASE"; say "base: $BASE (pulled)"; return
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

# build_image TAG HASH CONTEXT: docker build from $BASE (host network, so apt inside the build
# reaches the Debian mirror; never a pull), labelled with the inputs hash.
build_image() {
    local tag="$1" hash="$2" context="$3"
    say "docker build $tag from $BASE"
    docker build --network host --pull=false --build-arg "BASE=$BASE" \
        --label "$HASH_LABEL=$hash" --label "armada.base=$BASE" \
        --label "armada.built=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        -t "$tag" "$context"
}

# finish TAG: drop old untagged builds of our images and print the size. Only builds made more than
# 10 minutes ago: another checkout's build on the same engine leaves its image untagged for a moment
# between "Successfully built" and its tag, and must not lose it then (an organiser's trial).
finish() {
    local tag="$1"
    docker image prune -f --filter "label=$HASH_LABEL" --filter "until=10m" >/dev/null || true
    say "done: $tag ($(docker image inspect "$tag" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}'))"
}
