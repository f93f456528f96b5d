#!/bin/bash
# armada-app: the application image's entrypoint (docs/deploy.md, "The images").
#
#   web [gunicorn options]     collectstatic, the SDK wheel for /sdk/, then gunicorn on 0.0.0.0:$PORT
#   worker [KIND] [celery options]  a Celery worker named $ARMADA_WORKER_NAME@$ARMADA_HOST_NAME
#                              (the container's host name by default; needs the Docker socket
#                              and the sandbox folder: below); KIND (validation,
#                              matches or periodic) serves that kind's queues, named from the
#                              settings (`manage.py queues --worker KIND`)
#   beat [celery options]      Celery beat (its schedule file in $ARMADA_DATA_DIR/run)
#   health web|worker          the compose health checks: /healthz, or `celery inspect ping` and
#                              `manage.py healthcheck` (the role's checks: the engine included)
#   manage.py ARGS             Django's commands (migrate, createsuperuser, ...); the image's
#                              manage.py runs this script, so `docker exec` (root) drops too
#   anything else              run as it is (e.g. `celery --version`, `sh`)
#
# Started as root (the image's default), it makes the data folder and the sandbox folders, then
# drops to user armada (uid $ARMADA_APP_UID, 10100) with the group of the mounted Docker
# socket as its only extra group; ARMADA_APP_UID=0 keeps root. Started as another user
# (`docker run --user`), it runs as that user.
#
# The sandbox folder: a worker's bots run in containers of the host's engine, which bind-mounts
# the bots' code and FIFO folders by their host paths. ARMADA_SANDBOX_DIR names one host folder
# mounted at the same path in every worker container of the host; the worker keeps its temporary
# files (TMPDIR) in $ARMADA_SANDBOX_DIR/tmp and the host's slot locks in $ARMADA_SANDBOX_DIR/slots
# (ARMADA_SANDBOX_SLOT_DIR), shared by every worker of the host.
set -euo pipefail

APP_UID="${ARMADA_APP_UID:-10100}"
PY=/opt/armada/bin/python
export ARMADA_DATA_DIR="${ARMADA_DATA_DIR:-/var/lib/armada/data}"

# The worker's Celery node name: $ARMADA_WORKER_NAME@$ARMADA_HOST_NAME, the host part the container's
# host name by default (the settings' default too: the name each match it claims records).
node_name() { echo "${ARMADA_WORKER_NAME:-worker}@${ARMADA_HOST_NAME:-$(hostname)}"; }

socket_path() {
    case "${DOCKER_HOST:-}" in
        "") echo /var/run/docker.sock ;;
        unix://*) echo "${DOCKER_HOST#unix://}" ;;
        *) echo "" ;;
    esac
}

if [ -n "${ARMADA_SANDBOX_DIR:-}" ]; then
    export TMPDIR="${TMPDIR:-$ARMADA_SANDBOX_DIR/tmp}"
    export ARMADA_SANDBOX_SLOT_DIR="${ARMADA_SANDBOX_SLOT_DIR:-$ARMADA_SANDBOX_DIR/slots}"
fi

if [ "$(id -u)" = 0 ]; then
    mkdir -p "$ARMADA_DATA_DIR"
    # The data belongs to the app's user (anything root made in it, e.g. by `docker exec sh`, too).
    find "$ARMADA_DATA_DIR" -xdev ! -user "$APP_UID" -exec chown -h "$APP_UID:$APP_UID" {} +
    if [ -n "${ARMADA_SANDBOX_DIR:-}" ]; then
        # Like /tmp: every worker user may create, none removes another's (sticky); the folder
        # itself must let the worker's user through.
        mkdir -p "$TMPDIR" "$ARMADA_SANDBOX_SLOT_DIR"
        chmod a+x "$ARMADA_SANDBOX_DIR"
        chmod 1777 "$TMPDIR" "$ARMADA_SANDBOX_SLOT_DIR"
    fi
    if [ "$APP_UID" != 0 ]; then
        socket="$(socket_path)"
        if [ -n "$socket" ] && [ -S "$socket" ]; then
            groups=(--groups "$(stat -c %g "$socket")")
        else
            groups=(--clear-groups)
        fi
        exec setpriv --reuid "$APP_UID" --regid "$APP_UID" "${groups[@]}" --inh-caps=-all -- "$0" "$@"
    fi
fi

command="${1:-web}"
[ $# -gt 0 ] && shift
case "$command" in
    web)
        "$PY" -m django collectstatic --noinput -v0
        # The wheel /sdk/ serves: the one this image was built with (no other version beside it).
        wheel="$(echo /opt/armada/wheels/armada-[0-9]*.whl)"
        mkdir -p "$ARMADA_DATA_DIR/sdk"
        for old in "$ARMADA_DATA_DIR"/sdk/armada-*.whl; do
            [ "$old" = "$ARMADA_DATA_DIR/sdk/${wheel##*/}" ] || rm -f "$old"
        done
        cp "$wheel" "$ARMADA_DATA_DIR/sdk/"
        exec /opt/armada/bin/gunicorn -c /opt/armada/gunicorn.conf.py --bind "0.0.0.0:${PORT:-8000}" "$@"
        ;;
    worker)
        "$PY" /opt/armada/checks.py sandbox
        # Processes: ARMADA_WORKER_CONCURRENCY, else for matches cores / 2 - 1 (at least 1; two
        # bots of a match on two cores, the first two cores kept for validation: docs/sandbox.md),
        # fewer when the memory does not hold two bots of each (armada_sandbox._capacity).
        concurrency="${ARMADA_WORKER_CONCURRENCY:-}"
        if [[ -n "$concurrency" && ! "$concurrency" =~ ^[1-9][0-9]*$ ]]; then
            echo "armada-app: ARMADA_WORKER_CONCURRENCY (MATCH_CONCURRENCY or VALIDATION_CONCURRENCY in the" \
                 "env file) must be a whole number of processes, got '$concurrency'" >&2
            exit 1
        fi
        # What its bots' slots are for: a wrong word started a worker that played with no warm pool,
        # after an internal command's usage text (an organiser's trial).
        case "${ARMADA_SANDBOX_PURPOSE:-match}" in
            match|validation) ;;
            *) echo "armada-app: ARMADA_SANDBOX_PURPOSE must be match or validation," \
                    "got '${ARMADA_SANDBOX_PURPOSE}'" >&2
               exit 1 ;;
        esac
        # The database answers: a worker with a wrong DATABASE_URL would take matches from the
        # queues and fail every one (the check's line above says why).
        if ! "$PY" -m django healthcheck --checks database; then
            echo "armada-app: the worker does not start: its database does not answer (DATABASE_URL)" >&2
            exit 1
        fi
        if [ -z "$concurrency" ]; then
            concurrency=$("$PY" -m armada_sandbox concurrency --purpose "${ARMADA_SANDBOX_PURPOSE:-match}") \
                || concurrency=1
        fi
        case "${1:-}" in
            validation|matches|periodic) kind="$1"; shift
                                         set -- -Q "$("$PY" -m django queues --worker "$kind")" "$@" ;;
        esac
        quiet=()  # JSON lines only: no banner
        [ "${ARMADA_LOG_FORMAT:-text}" != json ] || quiet=(--quiet)
        exec /opt/armada/bin/celery "${quiet[@]}" -A armada_web worker -n "$(node_name)" \
            --concurrency "$concurrency" --loglevel "${LOG_LEVEL:-INFO}" "$@"
        ;;
    beat)
        mkdir -p "$ARMADA_DATA_DIR/run"
        exec /opt/armada/bin/celery -A armada_web beat --schedule "$ARMADA_DATA_DIR/run/celerybeat-schedule" \
            --loglevel "${LOG_LEVEL:-INFO}" "$@"
        ;;
    manage|manage.py)
        # (as `python -m django`, but its usage lines say `manage.py`, the name the docs give)
        exec "$PY" -c 'import sys
from django.core.management import execute_from_command_line
execute_from_command_line(["manage.py", *sys.argv[1:]])' "$@"
        ;;
    health)
        case "${1:-web}" in
            web) exec "$PY" /opt/armada/checks.py web ;;
            worker) /opt/armada/bin/celery -A armada_web inspect ping --timeout 10 \
                        -d "$(node_name)" \
                    && exec "$PY" -m django healthcheck ;;
            *) echo "armada-app health: web or worker, not '$1'" >&2; exit 2 ;;
        esac
        ;;
    *)
        exec "$command" "$@"
        ;;
esac
