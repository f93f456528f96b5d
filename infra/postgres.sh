#!/usr/bin/env bash
# Install and start a local PostgreSQL with a role that may create test databases.
# Prints the DATABASE_URL to use on its last line.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

is_root || die "PostgreSQL setup needs root"
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  say "installing PostgreSQL"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | grep -q .; then
  pg_createcluster "$version" main >/dev/null
fi
cluster=$(pg_lsclusters -h | head -1 | awk '{print $1" "$2}')
if ! pg_lsclusters -h | head -1 | grep -q online; then
  say "starting PostgreSQL $cluster"
  # shellcheck disable=SC2086
  pg_ctlcluster $cluster start
fi
port=$(pg_lsclusters -h | head -1 | awk '{print $3}')
wait_for "PostgreSQL" 30 su postgres -c "psql -p $port -tAc 'select 1'"
su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -q" <<SQL >/dev/null
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'armada') THEN
    CREATE ROLE armada LOGIN PASSWORD 'armada' CREATEDB;
  END IF;
END \$\$;
SQL
su postgres -c "psql -p $port -tAc \"SELECT 1 FROM pg_database WHERE datname = 'armada'\"" | grep -q 1 \
  || su postgres -c "createdb -p $port -O armada armada"
echo "postgresql://armada:armada@127.0.0.1:$port/armada"
