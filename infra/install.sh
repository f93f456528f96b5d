#!/usr/bin/env bash
# Install what Armada needs and is missing: Debian packages (as root) and the Python venv.
# Usage: infra/install.sh [extra Debian packages...]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# Debian packages: command we look for -> package that provides it.
declare -A NEED=(
  [redis-server]=redis-server
  [dockerd]=docker.io
  [debootstrap]=debootstrap
  [chromium]=chromium
  [chromedriver]=chromium-driver
  [docker-compose]=docker-compose
  [wrk]=wrk
)
missing=()
for cmd in "${!NEED[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || missing+=("${NEED[$cmd]}")
done
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
for pkg in "$@"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  if is_root && command -v apt-get >/dev/null; then
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    die "missing system packages: ${missing[*]}
    install them as root with:  apt-get update && apt-get install -y ${missing[*]}"
  fi
fi

# Python environment: the three packages, editable, plus the dev tools (and what the benches
# compare against when ARMADA_PY_EXTRAS=dev,bench, as `make bench` asks). uv installs them: the
# same packages as pip, in seconds instead of two minutes (pip compiles and unpacks one by one);
# if uv cannot be had, pip does it. Both write the bytecode (.pyc) of every module at install time:
# where PYTHONDONTWRITEBYTECODE is set (as on CI machines) Python would otherwise compile every
# module it imports again in every process, 3.5 s of CPU for each Celery worker or manage.py run.
extras="${ARMADA_PY_EXTRAS:-dev}"
# uv reads no pip configuration: give it pip's find-links (the bench's CPU torch wheel is there).
if [ -z "${UV_FIND_LINKS:-}" ] && [ -n "${PIP_FIND_LINKS:-}" ]; then export UV_FIND_LINKS="$PIP_FIND_LINKS"; fi
stamp="$VENV/.armada-installed"
inputs=$( (cat "$ROOT/pyproject.toml" "$ROOT/sdk/pyproject.toml" "$ROOT/sandbox/pyproject.toml"; echo "$extras bytecode") \
          | sha256sum | cut -c1-16)
if [ ! -x "$PY" ]; then
  say "creating $VENV"
  python3 -m venv "$VENV"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$inputs" ]; then
  say "installing Python packages into $VENV (extras: $extras)"
  pip_log="$LOG_DIR/pip.log"
  packages=(-e "$ROOT/sdk" -e "$ROOT/sandbox" -e "$ROOT[$extras]")
  # uv does not read pip's configuration: hand it pip's find-links, where a machine keeps its CPU build
  # of PyTorch (dev's torch==2.13.0); without it uv takes PyPI's CUDA build, gigabytes more.
  links=()
  for link in $("$PY" -m pip config get global.find-links 2>/dev/null || true); do
    links+=(--find-links "$link")
  done
  if ! { "$PY" -m pip install --upgrade pip wheel uv \
         && "$VENV/bin/uv" pip install --compile-bytecode --python "$PY" "${links[@]}" "${packages[@]}"; } >"$pip_log" 2>&1; then
    say "uv did not install them (the log: $pip_log); pip does"
    if ! "$PY" -m pip install "${packages[@]}" >>"$pip_log" 2>&1; then
      tail -n 30 "$pip_log" >&2
      die "pip install failed; the whole log is in $pip_log"
    fi
  fi
  echo "$inputs" > "$stamp"
fi

# Our own packages are installed editable: their bytecode is compiled here, each time (only what
# changed since; a second or less), for the same reason. The imitation starter's `files` are a
# template that `armada new` copies, not modules.
"$PY" -m compileall -q -j 0 -x 'starters/imitation/files' \
  "$ROOT/platform/armada_web" "$ROOT/sdk/armada" "$ROOT/sandbox/armada_sandbox" >/dev/null \
  || say "could not compile the packages' bytecode (they still run, only slower to start)"
