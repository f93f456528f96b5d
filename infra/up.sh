#!/usr/bin/env bash
# `make up`: install what is missing, start the services, the site, the Celery workers
# (`validation`; `finals,challenges,events,matches`; the default queue for periodic jobs) and Celery beat; print the URL
# and the demo admin's credentials. Ctrl-C stops what this run started (and nothing else).
# Running it while the site already runs changes nothing.
#
# Honours HOST, PORT, ARMADA_DATA_DIR (every file of its state), DATABASE_URL and REDIS_URL,
# so two instances can run side by side (give each its own Redis database number).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
URL="http://$HOST:$PORT/"

site_up() { "$PY" -c "import urllib.request,sys; urllib.request.urlopen('${URL}healthz', timeout=2)" ; }
port_taken() { python3 -c "import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(('$HOST', $PORT)) == 0 else 1)"; }

"$ROOT/infra/install.sh"
if [ -x "$PY" ] && port_taken; then
  if site_up 2>/dev/null || curl -s "${URL}healthz" | grep -q '"checks"'; then
    say "Armada is already running at $URL (nothing started)"
    exit 0
  fi
  die "port $PORT is taken by another program; set PORT=... to use another one"
fi

started="$RUN_DIR/started-by-armada"
: > "$started"
pids=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping what this run started"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  while read -r name pid; do
    [ -n "${pid:-}" ] && kill -TERM "$pid" 2>/dev/null && say "stopped $name"
  done < "$started"
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  : > "$started"
}
trap cleanup EXIT
trap "exit 0" INT  # Ctrl-C is how one stops it: no error for make to report
trap "exit 143" TERM

"$ROOT/infra/services.sh"
make -C "$ROOT" --no-print-directory bot-image

cd "$ROOT"
# The workers key each bot's ARMADA_BOT_SEED with a secret (D-R-8), kept with the instance's data.
key_file="$DATA_DIR/bot-seed.key"
if [ -z "${ARMADA_BOT_SEED_KEY:-}" ]; then
  [ -s "$key_file" ] || (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$key_file")
  ARMADA_BOT_SEED_KEY="$(cat "$key_file")"
  export ARMADA_BOT_SEED_KEY
fi

say "migrating the database"
"$PY" manage.py migrate --noinput -v0
creds=$("$PY" manage.py ensure_demo_admin)
"$PY" manage.py seed_demo
"$PY" manage.py build_sdk_wheel >/dev/null  # the wheel /sdk/ serves

say "starting the web server, the Celery workers and Celery beat (logs in $LOG_DIR)"
"$PY" manage.py runserver "$HOST:$PORT" --noreload >"$LOG_DIR/web.log" 2>&1 &
pids+=($!)
# One worker per queue: an upload's validation never waits behind other work.
instance="$PORT.$(hostname)"
# Sandbox slots (docs/sandbox.md): the validation worker keeps the validation pair warm; each
# match worker process keeps three warm pairs on its own two CPUs, so cores / 2 - 1 processes.
cores=$(nproc)
match_default=$(( cores / 2 - 1 )); [ "$match_default" -ge 1 ] || match_default=1
ARMADA_SANDBOX_WARM_PAIRS="${VALIDATION_WARM_PAIRS:-1}" ARMADA_SANDBOX_PURPOSE=validation \
"$VENV/bin/celery" -A armada_web worker -Q "${ARMADA_VALIDATION_QUEUE:-validation}" --loglevel INFO \
  --concurrency "${VALIDATION_CONCURRENCY:-1}" -n "validation.$instance" >"$LOG_DIR/worker-validation.log" 2>&1 &
pids+=($!)
# Matches: a season's finals first, then challenges, events and the ranked queue round robin
# (docs/arena.md, "Sharing the workers"; more workers: run this line again on any host with its
# own -n name, or raise MATCH_CONCURRENCY).
ARMADA_SANDBOX_WARM_PAIRS="${MATCH_WARM_PAIRS:-3}" ARMADA_SANDBOX_PURPOSE=match \
"$VENV/bin/celery" -A armada_web worker -Q "${ARMADA_FINALS_QUEUE:-finals},${ARMADA_CHALLENGES_QUEUE:-challenges},${ARMADA_EVENTS_QUEUE:-events},${ARMADA_MATCHES_QUEUE:-matches}" \
  --loglevel INFO --concurrency "${MATCH_CONCURRENCY:-$match_default}" -n "matches.$instance" >"$LOG_DIR/worker-matches.log" 2>&1 &
pids+=($!)
"$VENV/bin/celery" -A armada_web worker -Q celery --loglevel INFO --concurrency 1 -n "default.$instance" \
  >"$LOG_DIR/worker.log" 2>&1 &
pids+=($!)
"$VENV/bin/celery" -A armada_web beat --loglevel INFO \
  --schedule "$RUN_DIR/celerybeat-schedule" --pidfile "$RUN_DIR/celerybeat.pid" >"$LOG_DIR/beat.log" 2>&1 &
pids+=($!)
# The host's out-of-memory order (docs/sandbox.md, "Slots"): a bot may lower its own
# oom_score_adj from 1000 to 0, so the site's processes go below 0 and stay behind any bot.
# Lowering a score needs root (CAP_SYS_RESOURCE); without it the order rests on the bots' 1000.
for pid in "${pids[@]}" $(pgrep -x dockerd) $(pgrep -x containerd) $(pgrep -x redis-server); do
  echo -500 2>/dev/null >"/proc/$pid/oom_score_adj" || true
done

wait_for "the web server (see $LOG_DIR/web.log)" 30 site_up
cat <<MSG

  Armada is running at $URL
  Health:        ${URL}healthz
  Admin:         ${URL}admin/   ($creds)
  API:           ${URL}api/docs/
  Logs:          $LOG_DIR
  Press Ctrl-C to stop everything this command started.

MSG
wait -n "${pids[@]}" || true
sleep 0.5  # a Ctrl-C reaches the children too: let its trap run before calling this a failure
warn "a process exited on its own; see the logs in $LOG_DIR"
exit 1
