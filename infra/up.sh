#!/usr/bin/env bash
# `make up`: install what is missing, start the services, the site (gunicorn), the Celery workers
# (validation; matches: finals, challenges, events, ranked; periodic jobs: `manage.py queues`) and Celery beat; print the URL
# and the demo admin's credentials. Ctrl-C stops what this run started (and nothing else: Redis or
# the Docker engine it started keeps running while another instance uses it; infra/services.sh).
# Running it while the site already runs changes nothing.
#
# Honours HOST, PORT, ARMADA_DATA_DIR (every file of its state), DATABASE_URL and REDIS_URL,
# so two instances can run side by side (give each its own Redis database number), and
# ARMADA_DEMO (default true: the demo users and their bots, which play ranked matches; false: none).
#
# Production settings (docs/deploy.md): DEBUG off, a secret key made once and kept in the data
# folder (secret.key, mode 0600) unless SECRET_KEY is given, ALLOWED_HOSTS from HOST, and
# ARMADA_HTTPS=false since it serves plain HTTP (put a TLS proxy in front and set
# ARMADA_HTTPS=true ARMADA_PROXY_SSL_HEADER=X-Forwarded-Proto for a public site).
# `DEBUG=true make up` is the developer's opt-in (Django's technical error pages).
set -euo pipefail
# Started as a background job (`make up &`, nohup, a script's `cmd &`), a shell begins with SIGINT
# ignored and can never trap it: an INT to the process group would stop the children and not this
# script, which would then report them as crashed. Start again with SIGINT at its default.
# (Started again, SIGINT is no longer ignored: this runs once.)
if [ "$(trap -p INT)" = "trap -- '' SIGINT" ] && env --default-signal=INT true 2>/dev/null; then
  exec env --default-signal=INT "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"

HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
url_host="$HOST"; [[ "$HOST" == *:* ]] && url_host="[$HOST]"
URL="http://$url_host:$PORT/"
# The links of the e-mails the workers send (no request to ask there): this site's address.
case "$HOST" in
  0.0.0.0|::) site_host="$(hostname -f 2>/dev/null || hostname)" ;;  # every address: the machine's name
  *) site_host="$url_host" ;;
esac
export ARMADA_SITE_URL="${ARMADA_SITE_URL:-http://$site_host:$PORT}"

site_up() { "$PY" -c "import urllib.request,sys; urllib.request.urlopen('${URL}healthz', timeout=2)" ; }
port_taken() { python3 -c "import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(('$HOST', $PORT)) == 0 else 1)"; }

"$ROOT/infra/install.sh"
if [ -x "$PY" ] && port_taken; then
  if site_up 2>/dev/null || curl -s "${URL}healthz" | grep -q '"checks"'; then
    # This data folder's own instance holds its lock (below) and wrote its port; an Armada on the
    # port without both is another instance (a documentation audit: another checkout's site on the
    # port was taken for this one, "already running", exit 0, while nothing served this folder).
    # The port alone is compared: HOST and ARMADA_SITE_URL may differ between two runs of one site.
    if [ -e "$DATA_DIR/up.lock" ] && ! flock -n "$DATA_DIR/up.lock" true; then
      if [ "$(cat "$DATA_DIR/up.port" 2>/dev/null)" = "$PORT" ]; then
        say "Armada is already running at $URL (nothing started)"
        exit 0
      fi
      # else this folder's instance serves another port: the lock's refusal below names it
    else
      die "another Armada instance, not the one keeping its data in $DATA_DIR, answers at $URL;" \
          "give this one a PORT of its own (and its own REDIS_URL database: README.md)"
    fi
  else
    die "port $PORT is taken by another program; set PORT=... to use another one"
  fi
fi
# One run per data folder (an organiser's trial: a second `make up` with the same ARMADA_DATA_DIR and
# another PORT migrated and seeded the live database, started a second set of workers and rewrote the
# first one's site-url and manage.env). Held by this run and the processes it starts; released when
# the last of them ends.
exec {up_lock}>"$DATA_DIR/up.lock"
if ! flock -n "$up_lock"; then
  exec {up_lock}>&-  # (not named among the holders)
  holders=$(fuser "$DATA_DIR/up.lock" 2>/dev/null | xargs -n1 | sort -n | awk 'NR<=3{printf "%s%s", (NR>1?" ":""), $1} END{if (NR>3) printf " and %d more", NR-3}' || true)
  die "another make up runs with this data folder ($DATA_DIR${holders:+: processes $holders}); stop it first" \
      "(Ctrl-C where it runs), or give this one its own ARMADA_DATA_DIR"
fi
printf '%s\n' "$ARMADA_SITE_URL" > "$DATA_DIR/site-url"  # (`make worker` reads it: its e-mails' links)
printf '%s\n' "$PORT" > "$DATA_DIR/up.port"  # (a second `make up` on this port: "already running")

pids=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping what this run started"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  # No bot container or work folder outlives the run: a worker child killed meanwhile left its own
  # (their holder is dead now); containers of other checkouts' live workers are not touched.
  "$PY" -m armada_sandbox sweep >/dev/null 2>&1 || true
  # Redis and the Docker engine are the machine's: one this run started keeps running while another
  # instance uses it (a second instance beside the first); the last one to leave stops it.
  "$ROOT/infra/services.sh" release $$ || true
  if [ "${#pids[@]}" -gt 0 ]; then say "stopped (the logs stay in $LOG_DIR)"; fi
}
trap cleanup EXIT
trap "exit 0" INT  # Ctrl-C is how one stops it: no error for make to report
trap "exit 143" TERM

"$ROOT/infra/services.sh" --for $$ {up_lock}>&-  # (the services it starts outlive this run: not the lock)
make -C "$ROOT" --no-print-directory bot-image

cd "$ROOT"
# A secret made once and kept with the instance's data (mode 0600): secret_from VARIABLE FILE BYTES.
secret_from() {
  local name="$1" file="$DATA_DIR/$2"
  if [ -z "${!name:-}" ]; then
    [ -s "$file" ] || (umask 077; head -c "$3" /dev/urandom | od -An -tx1 | tr -d ' \n' > "$file")
    chmod 600 "$file"
    export "$name=$(cat "$file")"
  fi
}
# The workers key each bot's ARMADA_BOT_SEED with a secret (D-R-8).
secret_from ARMADA_BOT_SEED_KEY bot-seed.key 32
# Production settings unless DEBUG=true (the developer's opt-in).
export DEBUG="${DEBUG:-false}"
case "${DEBUG,,}" in
  1|true|yes|on) say "DEBUG is on: Django's technical error pages, for a developer's machine only" ;;
  *)
    secret_from SECRET_KEY secret.key 48   # 96 hex digits
    export ARMADA_HTTPS="${ARMADA_HTTPS:-false}"  # plain HTTP here; a TLS proxy in front turns it on
    if [ -z "${ALLOWED_HOSTS:-}" ]; then
      case "$HOST" in
        # every address: the machine's names and IPv4 addresses
        0.0.0.0|::) ALLOWED_HOSTS="$(hostname),$(hostname -f 2>/dev/null || hostname),$(hostname -I 2>/dev/null \
                      | tr ' ' '\n' | grep -v : | grep . | paste -sd, -),localhost,127.0.0.1,[::1]" ;;
        *) ALLOWED_HOSTS="$url_host,localhost,127.0.0.1,[::1]" ;;
      esac
      export ALLOWED_HOSTS
    fi
    ;;
esac

# This run's manage.py calls take the variables given here, never those of an older run's manage.env
# (manage.py reads it for commands given only ARMADA_DATA_DIR): a run with another DATABASE_URL
# would migrate and seed the old database. Not written to manage.env (below).
export ARMADA_OWN_VARIABLES=1
# The task queue the site uses, written to manage.env even when it is the default (config.py's), so
# that `make worker` given another one is refused.
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"

# Sandbox slots (docs/sandbox.md): the validation worker keeps the validation pair warm; each
# match worker process keeps three warm pairs on its own two CPUs, so cores / 2 - 1 processes,
# fewer when the memory does not hold two bots of each (docs/deploy.md, "How many bots"). Other
# instances' workers on this machine may hold the slots: checked before anything starts.
match_default=$("$PY" -m armada_sandbox concurrency 2>/dev/null) || match_default=1
check_slots $((2 * $(whole "${VALIDATION_WARM_PAIRS:-1}" 1) * $(whole "${VALIDATION_CONCURRENCY:-1}" 1) \
  + 2 * $(whole "${MATCH_WARM_PAIRS:-3}" 3) * $(whole "${MATCH_CONCURRENCY:-$match_default}" 1) + 2))

# The wheel /sdk/ serves and the static files need no database: made while the database migrates.
say "collecting the static files (hashed names, compressed; served by whitenoise)"
"$PY" manage.py collectstatic --noinput -v0 &
static_pid=$!
"$PY" manage.py build_sdk_wheel >/dev/null &
wheel_pid=$!
pids+=("$static_pid" "$wheel_pid")  # (a Ctrl-C meanwhile stops them too)
say "migrating the database"
"$PY" manage.py migrate --noinput -v0
# The SQLite database holds sessions, password hashes and token digests: its owner's alone (its
# -wal and -shm files take its mode). (With DATABASE_URL there is no such file.)
sqlite_file="${ARMADA_SQLITE_PATH:-$DATA_DIR/armada.sqlite3}"
[ -n "${DATABASE_URL:-}" ] || [ ! -e "$sqlite_file" ] || chmod 600 "$sqlite_file"*
creds=$(ARMADA_DEVDATA=true "$PY" manage.py ensure_demo_admin)
if [ "${ARMADA_DEMO:-true}" != false ]; then  # the demo bots (ARMADA_DEMO=false: none)
  ARMADA_DEVDATA=true "$PY" manage.py seed_demo  # the development app: only for this command
fi
wait "$static_pid" || die "collecting the static files failed (see above)"
wait "$wheel_pid" || die "building the SDK wheel failed (see above)"
pids=()

# The host's out-of-memory order (docs/sandbox.md, "Slots"): a bot may lower its own
# oom_score_adj from 1000 to 0, so the site's processes go below 0 and stay behind any bot:
# set here, before they start, every process below inherits it (gunicorn's and Celery's
# children too). Lowering a score needs root (CAP_SYS_RESOURCE); without it the order rests
# on the bots' 1000.
echo -500 2>/dev/null >"/proc/$$/oom_score_adj" || true

say "starting the web server (gunicorn), the Celery workers and Celery beat (logs appended in $LOG_DIR, rotated)"
log_settings
# Each process this run keeps going, by name: `start_NAME` starts it in the background (again,
# should it die: see the end).
# gunicorn's settings are infra/gunicorn.conf.py (workers from the cores, WEB_WORKERS overrides).
bind="$HOST:$PORT"; [[ "$HOST" == *:* ]] && bind="[$HOST]:$PORT"
start_web() {
  "$VENV/bin/gunicorn" -c "$ROOT/infra/gunicorn.conf.py" --bind "$bind" --access-logfile /dev/fd/3 \
    3> >(log_pipe access) > >(log_pipe web) 2>&1 &
}
# One worker per kind of work: an upload's validation never waits behind other work. Each kind's
# queues are named from the settings (armada_web.jobs.queues).
queues_of() { "$PY" manage.py queues --worker "$1"; }
# Node names KIND.PORT@HOST: the host part is this host's ARMADA_HOST_NAME (default: the machine's
# name, as the settings' default), so /status/, /metrics and each match's host tell hosts apart.
instance="$PORT@${ARMADA_HOST_NAME:-$(hostname)}"
# (The sandbox slots' warm pairs and the match workers' concurrency: above, check_slots.)
start_validation() {
  ARMADA_SANDBOX_WARM_PAIRS="${VALIDATION_WARM_PAIRS:-1}" ARMADA_SANDBOX_PURPOSE=validation \
  "$VENV/bin/celery" -A armada_web worker -Q "$(queues_of validation)" --loglevel INFO \
    --concurrency "${VALIDATION_CONCURRENCY:-1}" -n "validation.$instance" > >(log_pipe worker-validation) 2>&1 &
}
# Matches: a season's finals first, then challenges, events and the ranked queue round robin
# (docs/arena.md, "Sharing the workers"; more workers: `make worker` (infra/worker.sh) on this
# host, this line with its own -n name and ARMADA_HOST_NAME on another, or MATCH_CONCURRENCY).
start_matches() {
  ARMADA_SANDBOX_WARM_PAIRS="${MATCH_WARM_PAIRS:-3}" ARMADA_SANDBOX_PURPOSE=match \
  "$VENV/bin/celery" -A armada_web worker -Q "$(queues_of matches)" \
    --loglevel INFO --concurrency "${MATCH_CONCURRENCY:-$match_default}" -n "matches.$instance" \
    > >(log_pipe worker-matches) 2>&1 &
}
# Two processes: a run of a season's integrity checks (minutes at a season's scale) holds one, and
# the reapers, matchmaking and the season and event ticks go on in the other.
start_periodic() {
  "$VENV/bin/celery" -A armada_web worker -Q "$(queues_of periodic)" --loglevel INFO --concurrency 2 \
    -n "default.$instance" > >(log_pipe worker) 2>&1 &
}
start_beat() {
  "$VENV/bin/celery" -A armada_web beat --loglevel INFO \
    --schedule "$RUN_DIR/celerybeat-schedule" --pidfile "$RUN_DIR/celerybeat.pid" > >(log_pipe beat) 2>&1 &
}
declare -A running=()  # pid -> the name of what it runs
launch() { "start_$1"; running[$!]="$1"; pids+=($!); }
for name in web validation matches periodic beat; do launch "$name"; done
# The same order for the engine and Redis, which this run may not have started.
for pid in "${pids[@]}" $(pgrep -x dockerd) $(pgrep -x containerd) $(pgrep -x redis-server); do
  echo -500 2>/dev/null >"/proc/$pid/oom_score_adj" || true
done

wait_for "the web server (see $LOG_DIR/web.log)" 30 site_up
# What a `manage.py` command needs to behave as this site: every variable the site runs with (its
# data folder, database, task queue, secrets, limits), kept in the data folder (mode 0600, like
# secret.key: no URL's password in a log) and read by the printed line. (A season's close sends its
# integrity checks to the task queue: without REDIS_URL they went to another Redis database.)
MANAGE_ENV="$DATA_DIR/manage.env"
write_manage_env() {
  local name
  rm -f "$1"  # (an older file keeps its mode when written again: made anew, 0600 from the start)
  (umask 077
   {
     printf 'export ARMADA_DATA_DIR=%q\n' "$DATA_DIR"
     for name in $(compgen -e | grep -v -E '^(ARMADA_DATA_DIR|ARMADA_OWN_VARIABLES)$' | grep -E '^(ARMADA_|CELERY_|CACHE_|AWS_|EMAIL_|THROTTLE_|LOG_|DB_|SQLITE_)|^(DATABASE_URL|REDIS_URL|SECRET_KEY|SECRET_KEY_FALLBACKS|DEBUG|ALLOWED_HOSTS|CSRF_TRUSTED_ORIGINS|DEFAULT_FROM_EMAIL|MATCH_CONFIG|MATCH_TIME_LIMIT_S|VALIDATION_TURNS)$' | sort); do
       printf 'export %s=%q\n' "$name" "${!name}"
     done
   } > "$1")
  chmod 600 "$1"
}
write_manage_env "$MANAGE_ENV"
commands_line() { printf '(. %q && cd %q && %q manage.py ...)' "$MANAGE_ENV" "$ROOT" "$VENV/bin/python"; }
cat <<MSG

  Armada is running at $URL
  Health:        ${URL}healthz
  Admin:         ${URL}admin/   ($creds)
  API:           ${URL}api/docs/
  Logs:          $LOG_DIR
  Commands:      $(commands_line)
                 (seasons, integrity, backups: with this site's variables, kept in $MANAGE_ENV)
  Press Ctrl-C to stop everything this command started.

MSG
# A process that dies on its own (killed, out of memory) is started again, so a small event's
# site keeps serving and playing: the database holds every match and upload, and the reaper gives
# back what a dead worker held (docs/operations.md). Three deaths of one within ten minutes is a
# fault that starting again will not mend: everything stops, as before.
declare -A deaths=()  # name -> the times it died, epoch seconds
while true; do
  died=""
  wait -n -p died "${!running[@]}" || true
  sleep 0.5  # a Ctrl-C reaches the children too: let its trap run before calling this a death
  [ -n "$died" ] && [ -n "${running[$died]:-}" ] || continue
  name="${running[$died]}"; unset "running[$died]"
  # (gone from what a stop signals too: the kernel may give its pid to another process meanwhile)
  alive=(); for pid in "${pids[@]}"; do [ "$pid" = "$died" ] || alive+=("$pid"); done; pids=("${alive[@]}")
  now=$(date +%s); recent=""
  for at in ${deaths[$name]:-} "$now"; do (( now - at < 600 )) && recent+="$at "; done
  deaths[$name]="$recent"
  if [ "$(wc -w <<<"$recent")" -ge 3 ]; then
    warn "$name exited on its own 3 times within 10 minutes; stopping everything (see the logs in $LOG_DIR)"
    exit 1
  fi
  warn "$name (pid $died) exited on its own; starting it again (see the logs in $LOG_DIR)"
  launch "$name"
done
