# Shared helpers for the infra scripts. Source it; do not run it.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
DATA_DIR="${ARMADA_DATA_DIR:-$ROOT/var}"
RUN_DIR="$DATA_DIR/run"
LOG_DIR="$DATA_DIR/log"
mkdir -p "$RUN_DIR" "$LOG_DIR"
# The data folder holds the site's secrets, its private uploads, replays and bot logs, and its logs
# (with the console e-mail backend, a password reset's link): its owner's alone, whatever the modes
# of the files in it.
chmod 700 "$DATA_DIR" 2>/dev/null || printf '!! cannot make %s private to its owner (chmod 700)\n' "$DATA_DIR" >&2

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

# whole N DEFAULT: N when it is a whole number, else DEFAULT (a bad value is refused where it is used).
whole() { if [[ "$1" =~ ^[0-9]+$ ]]; then echo "$1"; else echo "$2"; fi; }

# check_slots WANT: before starting workers, the host's free sandbox slots (docs/sandbox.md,
# "Slots"). Every Armada worker on this machine shares them, keeps warm containers in some and
# leaves one pair free for everyone's cold starts: with no pair free beyond that one, this site
# would have no slot of its own (its validations and matches waited and failed: refused, before it
# starts anything); with fewer than WANT (its workers' warm pairs and the spare pair) it keeps
# fewer warm containers than asked (a warning). Says nothing when the slots cannot be read.
check_slots() {
  local want="$1" free free_matches size
  read -r free free_matches size < <("$PY" -m armada_sandbox slots 2>/dev/null) || return 0
  [ -n "${size:-}" ] || return 0
  if [ "$free_matches" -lt 4 ]; then
    die "only $free_matches of this machine's $size sandbox slots for matches are free, and every Armada worker leaves 2 free for bots that start cold: other Armada workers hold the rest (each \`make up\` and \`make worker\` keeps warm containers in some), so this site would have no slot of its own and its validations and matches would wait and fail. Stop one of them, or start them with MATCH_WARM_PAIRS=1 (docs/sandbox.md, \"Slots\")."
  fi
  if [ "$free" -lt "$want" ]; then
    warn "$free of this machine's $size sandbox slots are free (other Armada workers hold the rest); these workers would keep $want: they keep fewer warm containers and start some bots cold, so their matches take longer (docs/sandbox.md, \"Slots\")"
  fi
  return 0
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
