#!/usr/bin/env bash
# A second Docker engine on this machine, as a second worker host has one: its own socket, data
# root, exec root (and so its own containerd, network namespaces and state), pidfile, containerd
# namespace and parent cgroup; a bridge of its own with no address and no iptables rules, so
# nothing of it touches the main engine (bots run with network "none", worker containers with the
# host's). Not `--bridge none`: a dockerd started so deletes the interface docker0, the main
# engine's default bridge, and `docker run` without --network then fails there. It gets the bot image from the main engine
# (`docker save | docker load`, skipped when it already has the same image). Tests of many worker
# hosts use it (tests/support/docker_engine.py); docs/deploy.md, "Adding a worker host".
#
# Loading a 1.3 GB image takes half a minute, so the first engine that loaded the current images
# leaves a copy of its data root when it stops (/var/lib/armada-dockerd/.template, with the image
# ids in .armada-images); a new engine starts from that copy in a second or two: its overlay2
# layers hard-linked (an image layer is never written, a container writes to a layer of its own),
# everything else copied.
#
# Usage (as root): infra/dockerd-second.sh start|stop|kill|env|status|purge [NAME]
#   start    start it (a no-op when it runs), remove containers an earlier run left, load the images;
#            prints DOCKER_HOST=unix://... on its last line
#   env      print `export DOCKER_HOST=unix://...` (eval "$(infra/dockerd-second.sh env)")
#   status   exit 0 when it answers
#   stop     remove its containers, stop it and its containerd, unmount and remove its run folder
#            and cgroups; the data root stays (the loaded image: the next start is quick)
#   kill     what a host losing power does: SIGKILL to its containers' processes, shims, containerd
#            and dockerd (then `stop` cleans up what is left)
#   purge    stop, then remove the data root too
#
# NAME (default "second", or ARMADA_ENGINE_NAME): letters, digits and dashes; each name is an
# engine of its own. ARMADA_ENGINE_IMAGES: images to copy in (default armada/bot:latest).
set -euo pipefail

die() { printf 'dockerd-second: %s\n' "$*" >&2; exit 1; }
say() { printf 'dockerd-second: %s\n' "$*" >&2; }

action="${1:-}"
NAME="${2:-${ARMADA_ENGINE_NAME:-second}}"
[[ "$NAME" =~ ^[a-z0-9][a-z0-9-]{0,30}$ ]] || die "bad engine name '$NAME' (letters, digits, dashes)"
RUN="/run/armada-dockerd/$NAME"
DATA="${ARMADA_ENGINE_DATA:-/var/lib/armada-dockerd/$NAME}"
SOCK="$RUN/docker.sock"
PIDFILE="$RUN/dockerd.pid"
CGROUP="armada-$NAME"
# Its default bridge (an interface name has at most 15 characters).
BRIDGE="armd$(printf %s "$NAME" | sha1sum | cut -c1-8)"
IMAGES="${ARMADA_ENGINE_IMAGES:-armada/bot:latest}"
HOST="unix://$SOCK"
TEMPLATE="$(dirname "$DATA")/.template"

answers() { [[ -S "$SOCK" ]] && docker -H "$HOST" version --format '{{.Server.Version}}' >/dev/null 2>&1; }
daemon_pid() { [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null && cat "$PIDFILE"; }
# Its containerd, its shims and its containers' processes (found by its exec root, namespace, cgroup).
containerd_pids() { pgrep -f "containerd --config $RUN/exec/containerd/containerd.toml" || true; }
shim_pids() { pgrep -f "containerd-shim-runc-v2 -namespace armada-$NAME " || true; }
cgroup_pids() { cat /sys/fs/cgroup/*/"$CGROUP"/*/cgroup.procs /sys/fs/cgroup/"$CGROUP"/*/cgroup.procs 2>/dev/null | sort -u || true; }

# "IMAGE ID" for each of $IMAGES, as the main engine has them.
wanted_images() {
    local image id
    for image in $IMAGES; do
        id="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null)" \
            || die "image $image is not in the main engine (make images)"
        echo "$image $id"
    done
}

# copy_root FROM TO: a stopped engine's data root; overlay2 hard-linked, the rest (databases
# written in place) copied.
copy_root() {
    local entry
    mkdir -p "$2"
    for entry in "$1"/* "$1"/.armada-images; do
        [[ -e "$entry" ]] || continue
        if [[ "$(basename "$entry")" == overlay2 ]]; then cp -al "$entry" "$2/"; else cp -a "$entry" "$2/"; fi
    done
}

# A new engine (no image store yet) starts from the kept copy when it holds the images wanted.
seed_from_template() {
    [[ ! -e "$DATA/image" ]] || return 0
    exec 8>"$TEMPLATE.lock"
    flock -s 8
    if [[ -f "$TEMPLATE/.armada-images" && "$(cat "$TEMPLATE/.armada-images")" == "$(wanted_images)" ]]; then
        say "engine '$NAME' starts from the kept copy of its images"
        copy_root "$TEMPLATE" "$DATA"
    fi
    exec 8>&-
}

# After a stop: keep a copy of this data root when it holds the current images and the kept
# copy does not.
publish_template() {
    [[ -f "$DATA/.armada-images" ]] || return 0
    local want
    want="$(wanted_images 2>/dev/null)" || return 0
    [[ "$(cat "$DATA/.armada-images")" == "$want" ]] || return 0
    exec 8>"$TEMPLATE.lock"
    flock 8
    if [[ ! -f "$TEMPLATE/.armada-images" || "$(cat "$TEMPLATE/.armada-images")" != "$want" ]]; then
        rm -rf "$TEMPLATE.new"
        copy_root "$DATA" "$TEMPLATE.new"
        rm -rf "$TEMPLATE"
        mv "$TEMPLATE.new" "$TEMPLATE"
    fi
    exec 8>&-
}

start() {
    [[ "$(id -u)" == 0 ]] || die "a second engine needs root"
    local dockerd_bin
    dockerd_bin="$(command -v dockerd || echo /usr/sbin/dockerd)"
    [[ -x "$dockerd_bin" ]] || die "dockerd is not installed (apt-get install -y docker.io)"
    mkdir -p "$RUN/exec" "$DATA"
    exec 9>"$RUN.lock"
    flock 9
    if ! answers; then
        seed_from_template
        [[ -z "$(daemon_pid || true)" ]] || stop_daemon
        ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add name "$BRIDGE" type bridge
        echo '{}' >"$RUN/daemon.json"  # not /etc/docker/daemon.json: nothing of the main engine's
        say "starting engine '$NAME' on $SOCK (data root $DATA)"
        setsid nohup "$dockerd_bin" --host "$HOST" --data-root "$DATA" --exec-root "$RUN/exec" \
            --pidfile "$PIDFILE" --config-file "$RUN/daemon.json" \
            --containerd-namespace "armada-$NAME" --containerd-plugins-namespace "armada-$NAME-plugins" \
            --cgroup-parent "/$CGROUP" --bridge "$BRIDGE" --iptables=false --ip-masq=false --ip-forward=false \
            --log-level warn </dev/null >"$RUN/dockerd.log" 2>&1 9>&- &  # the lock stays ours, not the daemons'
        local i
        for ((i = 0; i < 300; i++)); do answers && break; sleep 0.2; done
        answers || { tail -n 20 "$RUN/dockerd.log" >&2; die "engine '$NAME' did not answer within 60 s"; }
    fi
    # A fresh host: no container of an earlier run (a killed engine's are in its data root).
    local left
    left="$(docker -H "$HOST" ps -aq)"
    [[ -z "$left" ]] || docker -H "$HOST" rm -f $left >/dev/null
    local image mine theirs
    for image in $IMAGES; do
        mine="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null)" \
            || die "image $image is not in the main engine (make images)"
        theirs="$(docker -H "$HOST" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
        if [[ "$mine" != "$theirs" ]]; then
            say "loading $image into engine '$NAME'"
            docker save "$image" | docker -H "$HOST" load -q >/dev/null
            docker -H "$HOST" image prune -f >/dev/null  # the version it replaced
        fi
    done
    wanted_images >"$DATA/.armada-images"
    echo "DOCKER_HOST=$HOST"
}

stop_daemon() {
    local pid i
    pid="$(daemon_pid || true)"
    [[ -n "$pid" ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
}

kill_all() {
    local pids
    # shellcheck disable=SC2046
    pids="$(cgroup_pids; shim_pids; containerd_pids; daemon_pid || true)"
    # shellcheck disable=SC2086
    [[ -z "${pids//[[:space:]]/}" ]] || kill -KILL $pids 2>/dev/null || true
}

# stop [purging]: with "purging" it says nothing of the data root, which purge removes next.
stop() {
    local purging="${1:-}"
    [[ "$(id -u)" == 0 ]] || die "stopping a second engine needs root"
    if answers; then
        local left
        left="$(docker -H "$HOST" ps -aq)"
        [[ -z "$left" ]] || docker -H "$HOST" rm -f $left >/dev/null 2>&1 || true
    fi
    stop_daemon
    local i
    for ((i = 0; i < 50; i++)); do [[ -z "$(containerd_pids)$(shim_pids)" ]] && break; sleep 0.2; done
    kill_all  # whatever did not end by itself (after `kill`, or a daemon that hung)
    sleep 0.2
    # Mounts of its containers and network namespaces, innermost first.
    { awk '{print $2}' /proc/mounts | grep -E "^($RUN|$DATA)(/|$)" || true; } | sort -r | while read -r mount; do
        umount -l "$mount" 2>/dev/null || true
    done
    find /sys/fs/cgroup -depth -type d \( -path "*/$CGROUP" -o -path "*/$CGROUP/*" \) -exec rmdir {} + 2>/dev/null || true
    ip link del "$BRIDGE" 2>/dev/null || true
    rm -rf "$RUN" "$RUN.lock"
    rmdir /run/armada-dockerd 2>/dev/null || true
    publish_template
    [[ "$purging" == purging ]] || say "engine '$NAME' stopped (data root $DATA kept)"
}

case "$action" in
    start) start ;;
    env) echo "export DOCKER_HOST=$HOST" ;;
    status) answers ;;
    stop) stop ;;
    kill)
        [[ "$(id -u)" == 0 ]] || die "needs root"
        kill_all
        rm -f "$DATA/.armada-images"  # a killed engine's data root is never kept as the copy
        say "engine '$NAME' killed" ;;
    purge)
        stop purging
        rm -rf "$DATA"
        rmdir "$(dirname "$DATA")" 2>/dev/null || true
        say "engine '$NAME' stopped and its data root $DATA removed" ;;
    *) die "usage: $0 start|stop|kill|env|status|purge [NAME]" ;;
esac
