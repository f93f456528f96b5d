#!/usr/bin/env bash
# `make test`: ensure the environment and services, then run the whole pytest suite.
# pytest's exit code is kept: 5 (no test collected) is a failure too. Tests run in parallel, one
# pytest-xdist worker per core (PYTEST_WORKERS=0 runs them in this one process); an idle worker
# takes half of another's queue (worksteal), and the long modules go first (tests/conftest.py).
# It ends with the 30 slowest set-ups, calls and tear-downs (where the time goes: tests/README.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

"$ROOT/infra/install.sh" gcc libc6-dev  # they build tests/support/no_netlink.c (the suite's Chromium)
"$ROOT/infra/services.sh"
make -C "$ROOT" --no-print-directory images
cd "$ROOT"
say "running the test suite (database: ${DATABASE_URL:-SQLite})"
workers="${PYTEST_WORKERS:-auto}"
if [ "$workers" = 0 ]; then exec "$PY" -m pytest "$@"; fi
exec "$PY" -m pytest -n "$workers" --dist worksteal --durations=30 "$@"
