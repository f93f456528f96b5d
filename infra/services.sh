#!/usr/bin/env bash
# Make sure Redis and the Docker engine run; starts only what is not running.
#
#   infra/services.sh               (make services) what it starts runs until stopped by hand
#   infra/services.sh --for PID     (make up, PID its own process) PID uses the services: it is
#                                   recorded as a user of each, and what it starts as started by a make up
#   infra/services.sh release PID   (make up's exit) PID no longer uses them; a service a make up
#                                   started is stopped when no live instance uses it any more
#
# The services are the machine's, shared by every `make up` on it (a second instance beside the first,
# other checkouts), so their users are recorded in one folder of the machine, not in an instance's
# data folder: $SHARED_RUN_DIR/SERVICE/users/PID (the start time of process PID: a pid reused by
# another process is not a user) and SERVICE/started (the pid and start time of the service, when a
# make up started it). A `make up` killed outright leaves its user file behind; its pid is dead, so it
# counts for nothing. One lock serialises the checks, starts and stops.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if is_root; then SHARED_RUN_DIR=/run/armada; else SHARED_RUN_DIR="/tmp/armada-services-$(id -u)"; fi
mkdir -p -m 700 "$SHARED_RUN_DIR"
[ -O "$SHARED_RUN_DIR" ] || die "$SHARED_RUN_DIR belongs to another user; remove it"
exec {lock_fd}>"$SHARED_RUN_DIR/lock"
flock "$lock_fd"

# proc_start PID: the process's start time (clock ticks since boot, /proc/PID/stat field 22).
proc_start() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  read -ra fields <<< "${stat##*) }"
  echo "${fields[19]}"
}
# alive PID START: that very process still runs.
alive() { [ -n "${1:-}" ] && [ "$(proc_start "$1" 2>/dev/null)" = "${2:-}" ]; }
# live_users DIR: the users of the service recorded in DIR that still run (the others are removed).
live_users() {
  local file n=0
  for file in "$1"/users/*; do
    [ -e "$file" ] || continue
    if alive "$(basename "$file")" "$(cat "$file")"; then n=$((n + 1)); else rm -f "$file"; fi
  done
  echo "$n"
}

if [ "${1:-}" = release ]; then
  user="$2"
  for dir in "$SHARED_RUN_DIR"/*/; do
    dir="${dir%/}"; name=$(basename "$dir")
    [ -e "$dir/users/$user" ] || continue
    rm -f "$dir/users/$user"
    [ -s "$dir/started" ] || continue  # not started by a make up: never stopped by one
    read -r pid start < "$dir/started"
    if ! alive "$pid" "$start"; then
      rm -f "$dir/started"
    elif [ "$(live_users "$dir")" -gt 0 ]; then
      say "left $name running: another instance uses it"
    else
      kill -TERM "$pid" 2>/dev/null || true
      for ((i = 0; i < 150; i++)); do alive "$pid" "$start" || break; sleep 0.2; done
      rm -rf "$dir"  # (its users are gone; the lock is the folder above's)
      say "stopped $name (started by make up, used by no other instance)"
    fi
  done
  exit 0
fi

user=""
[ "${1:-}" = --for ] && user="$2"
# uses SERVICE [PID]: record the user of SERVICE (make up only), and PID as the service a make up started.
uses() {
  [ -n "$user" ] || return 0
  local dir="$SHARED_RUN_DIR/$1"
  mkdir -p "$dir/users"
  proc_start "$user" > "$dir/users/$user"
  if [ -n "${2:-}" ]; then echo "$2 $(proc_start "$2")" > "$dir/started"; fi
}

redis_ok() { "$PY" - <<'PY'
import os, socket
url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
host, _, port = url.split("//", 1)[1].split("/", 1)[0].rpartition(":")
socket.create_connection((host or "127.0.0.1", int(port or 6379)), timeout=1).close()
PY
}

redis_port=$("$PY" -c "import os; from urllib.parse import urlsplit; print(urlsplit(os.environ.get('REDIS_URL', 'redis://127.0.0.1:6379/0')).port or 6379)")
if redis_ok 2>/dev/null; then
  say "Redis is running"
  uses "redis-$redis_port"
else
  command -v redis-server >/dev/null || die "redis-server is not installed (apt-get install -y redis-server)"
  say "starting Redis on port $redis_port"
  mkdir -p "$SHARED_RUN_DIR/redis-$redis_port"
  pidfile="$SHARED_RUN_DIR/redis-$redis_port/redis.pid"
  rm -f "$pidfile"
  # (it daemonizes into a session of its own: a Ctrl-C in the terminal does not reach it)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$pidfile" --logfile "$LOG_DIR/redis.log" {lock_fd}>&-  # (the lock is not the service's)
  wait_for "Redis" 10 redis_ok
  wait_for "Redis's pid file" 10 test -s "$pidfile"
  uses "redis-$redis_port" "$(cat "$pidfile")"
fi

engine="dockerd-$(printf %s "${DOCKER_HOST:-default}" | tr -c 'A-Za-z0-9.-' _)"
if docker info >/dev/null 2>&1; then
  say "Docker engine is running"
  uses "$engine"
else
  dockerd_bin=$(command -v dockerd || echo /usr/sbin/dockerd)
  [ -x "$dockerd_bin" ] || die "dockerd is not installed (apt-get install -y docker.io)"
  is_root || die "the Docker engine is not running and only root can start it: sudo dockerd &"
  say "starting the Docker engine"
  # In a session of its own: a Ctrl-C in the terminal of the make up that started it does not stop
  # it (another instance may use it; the last one to leave stops it).
  setsid nohup "$dockerd_bin" >"$LOG_DIR/dockerd.log" 2>&1 < /dev/null {lock_fd}>&- &
  dockerd_pid=$!
  wait_for "the Docker engine (see $LOG_DIR/dockerd.log)" 60 docker info
  uses "$engine" "$dockerd_pid"
fi
