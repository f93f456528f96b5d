#!/usr/bin/env bash
# Make sure Redis and the Docker engine run. Starts only what is not running and records
# what it started in var/run/started-by-armada so `make up` can stop exactly that.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

started="$RUN_DIR/started-by-armada"

redis_ok() { "$PY" - <<'PY'
import os, socket
url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
host, _, port = url.split("//", 1)[1].split("/", 1)[0].rpartition(":")
socket.create_connection((host or "127.0.0.1", int(port or 6379)), timeout=1).close()
PY
}

if redis_ok 2>/dev/null; then
  say "Redis is running"
else
  command -v redis-server >/dev/null || die "redis-server is not installed (apt-get install -y redis-server)"
  redis_port=$("$PY" -c "import os; from urllib.parse import urlsplit; print(urlsplit(os.environ.get('REDIS_URL', 'redis://127.0.0.1:6379/0')).port or 6379)")
  say "starting Redis on port $redis_port"
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$RUN_DIR/redis.pid" --logfile "$LOG_DIR/redis.log"
  wait_for "Redis" 10 redis_ok
  echo "redis $(cat "$RUN_DIR/redis.pid")" >> "$started"
fi

if docker info >/dev/null 2>&1; then
  say "Docker engine is running"
else
  dockerd_bin=$(command -v dockerd || echo /usr/sbin/dockerd)
  [ -x "$dockerd_bin" ] || die "dockerd is not installed (apt-get install -y docker.io)"
  is_root || die "the Docker engine is not running and only root can start it: sudo dockerd &"
  say "starting the Docker engine"
  nohup "$dockerd_bin" >"$LOG_DIR/dockerd.log" 2>&1 &
  echo "dockerd $!" >> "$started"
  wait_for "the Docker engine (see $LOG_DIR/dockerd.log)" 60 docker info
fi
