# Shared helpers for the infra scripts. Source it; do not run it.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
DATA_DIR="${ARMADA_DATA_DIR:-$ROOT/var}"
RUN_DIR="$DATA_DIR/run"
LOG_DIR="$DATA_DIR/log"
mkdir -p "$RUN_DIR" "$LOG_DIR"

say() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }
warn() { printf '\033[1;33m!!\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31mxx\033[0m %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# log_pipe NAME: append standard input to $LOG_DIR/NAME.log, rotated by size (infra/logpipe.py),
# never truncated. Use: `command > >(log_pipe web) 2>&1 &` ($! is then the command's pid). The sizes
# are the settings ARMADA_LOG_MAX_BYTES and ARMADA_LOG_BACKUPS, read once (log_settings).
log_pipe() { exec "$PY" "$ROOT/infra/logpipe.py" "$LOG_DIR/$1.log" --max-bytes "$LOG_MAX_BYTES" --backups "$LOG_BACKUPS"; }
log_settings() {
  read -r LOG_MAX_BYTES LOG_BACKUPS < <("$PY" -c \
    "from armada_web.runtime.config import load; c = load(); print(c.log_max_bytes, c.log_backups)")
}

# wait_for DESCRIPTION SECONDS COMMAND...: poll until COMMAND succeeds.
wait_for() {
  local what="$1" secs="$2"; shift 2
  local i
  for ((i = 0; i < secs * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  die "$what did not come up within ${secs}s"
}
