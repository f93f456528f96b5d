#!/usr/bin/env bash
# `make worker`: one more match worker on this machine for the instance `make up` runs, with that
# instance's settings: the same ARMADA_DATA_DIR as given to `make up` (none: its default), the rest
# taken from the instance's manage.env in that folder (its database, task queue and every limit per
# game: a worker with other limits would play other rules), a task queue or database given that is
# not the instance's refused, its secrets read from the data folder (SECRET_KEY, and ARMADA_BOT_SEED_KEY,
# which keys every bot's seed: D-R-8), its warm slots (docs/sandbox.md). It runs in the foreground
# until Ctrl-C; start it again for another. Other hosts: docs/deploy.md, "Adding a worker host".
set -euo pipefail
same="start it with \`make up\` first, and give this the same ARMADA_DATA_DIR, DATABASE_URL and REDIS_URL"
# No folder made for a mistyped ARMADA_DATA_DIR (lib.sh makes the run and log folders in it).
data="${ARMADA_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/var}"
if [ ! -d "$data" ]; then
  printf '\033[1;31mxx\033[0m %s\n' "no instance keeps its data in $data (no such folder): $same" >&2
  exit 1
fi
# The instance's own variables (infra/up.sh writes them to manage.env), where this is given none.
env_file="$data/manage.env"
if [ -s "$env_file" ]; then
  site_value() { (set +u; . "$env_file" >/dev/null 2>&1 && printf '%s' "${!1-}"); }
  for name in $(sed -n 's/^export \([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' "$env_file"); do
    theirs="$(site_value "$name")"
    if [ -z "${!name+x}" ]; then
      export "$name=$theirs"
    elif [ "${!name}" != "$theirs" ]; then
      case "$name" in
        REDIS_URL|DATABASE_URL)
          printf '\033[1;31mxx\033[0m %s\n' "the instance in $data runs with its own $name (in $env_file), not the one given here: it would serve another task queue or database; leave $name out" >&2
          exit 1 ;;
        *) printf '\033[1;33m!!\033[0m %s\n' "$name given here differs from the instance's (in $env_file): this worker plays with the value given" >&2 ;;
      esac
    fi
  done
  for name in REDIS_URL DATABASE_URL; do  # given here while the instance runs on its default
    if [ -n "${!name:-}" ] && ! grep -q "^export $name=" "$env_file"; then
      printf '\033[1;31mxx\033[0m %s\n' "the instance in $data runs with the default $name (none in $env_file), not the one given here: leave $name out" >&2
      exit 1
    fi
  done
fi
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

[ -x "$PY" ] || die "no .venv here: start the instance with \`make up\` first"
# key VARIABLE FILE: the variable as given, else the instance's file in its data folder.
key() {
  [ -n "${!1:-}" ] && return 0
  [ -s "$DATA_DIR/$2" ] || die "no instance keeps its data in $DATA_DIR ($2 is missing): $same"
  export "$1=$(cat "$DATA_DIR/$2")"
}
key ARMADA_BOT_SEED_KEY bot-seed.key
# The address `make up` gave its e-mails' links (an older instance wrote none: the first allowed host).
if [ -z "${ARMADA_SITE_URL:-}" ] && [ -s "$DATA_DIR/site-url" ]; then
  export ARMADA_SITE_URL="$(cat "$DATA_DIR/site-url")"
fi
export DEBUG="${DEBUG:-false}"
case "${DEBUG,,}" in
  1|true|yes|on) ;;
  *) # `DEBUG=true make up` keeps no secret.key (Django's own development key): say so, not "no instance".
     [ -n "${SECRET_KEY:-}" ] || [ -s "$DATA_DIR/secret.key" ] \
       || die "the instance in $DATA_DIR keeps no secret.key: if it was started with \`DEBUG=true make up\`, run \`DEBUG=true make worker\`; else give the SECRET_KEY it runs with"
     key SECRET_KEY secret.key ;;
esac
# Its database answers and is migrated (`make up` migrates it): else no instance is there.
"$PY" manage.py migrate --check >/dev/null 2>&1 \
  || die "the database of this instance does not answer or is not migrated (DATABASE_URL=${DATABASE_URL:-the SQLite file in $DATA_DIR}); is \`make up\` running with the same settings?"

# Room in the host's sandbox slots for its warm pairs and the spare pair (infra/lib.sh).
check_slots $((2 * $(whole "${MATCH_WARM_PAIRS:-3}" 3) * $(whole "${MATCH_CONCURRENCY:-1}" 1) + 2))
# Behind any bot in the host's out-of-memory order, as `make up`'s own processes (infra/up.sh).
echo -500 2>/dev/null >"/proc/$$/oom_score_adj" || true
# A node name of its own (the pid), the host part as `make up`'s: /status/ counts it on this host.
name="matches-$$.${PORT:-8000}@${ARMADA_HOST_NAME:-$(hostname)}"
say "one more match worker ($name), logging here; Ctrl-C stops it"
ARMADA_SANDBOX_WARM_PAIRS="${MATCH_WARM_PAIRS:-3}" ARMADA_SANDBOX_PURPOSE=match \
exec "$VENV/bin/celery" -A armada_web worker -Q "$("$PY" manage.py queues --worker matches)" \
  --loglevel INFO --concurrency "${MATCH_CONCURRENCY:-1}" -n "$name"
