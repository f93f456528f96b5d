#!/usr/bin/env bash
# Build the images of the services infra/compose.yml runs beside ours, from Debian's packages on
# the local Debian base (no image can be pulled): armada/postgres:15 (postgres/) and
# armada/redis:7 (redis/). `make service-images` and `make images` call it. Cached like the
# other images: the label armada.inputs is the hash of the image's folder.
set -euo pipefail
IMAGE_NAME=service-images
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# build_service FOLDER TAG SMOKE-COMMAND...: build TAG from FOLDER unless it is up to date.
build_service() {
    local folder="$IMAGES_DIR/$1" tag="$2" hash
    shift 2
    hash="$(cd "$folder" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
    up_to_date "$tag" "$hash" && return 0
    [[ -n "${BASE:-}" ]] || choose_base
    build_image "$tag" "$hash" "$folder"
    say "smoke test: $*"
    docker run --rm --network none --entrypoint "$1" "$tag" "${@:2}"
    finish "$tag"
}

build_service postgres "${ARMADA_POSTGRES_IMAGE:-armada/postgres:15}" postgres --version
build_service redis "${ARMADA_REDIS_IMAGE:-armada/redis:7}" redis-server --version
