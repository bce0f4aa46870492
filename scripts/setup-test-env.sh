#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine: the npm packages and
# the system packages whose servers and tools the integration tests start on 127.0.0.1.
# Idempotent: skips what is already there. Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Debian packages the tests use, by the command that proves each is present.
declare -A PKG_FOR=(
  [systemd-analyze]=systemd
  [prometheus]=prometheus
  [promtool]=prometheus
  [amtool]=prometheus-alertmanager
  [chromium]=chromium
  [docker-compose]=docker-compose
  [redis-server]=redis-server
  [openssl]=openssl
  [redis-cli]=redis-tools
  [wget]=wget
)
missing=()
for cmd in "${!PKG_FOR[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${PKG_FOR[$cmd]}")
done
# initdb is not on PATH in Debian: the PostgreSQL tests start a throwaway server from here.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  # Sorted and unique: several commands come from one package.
  mapfile -t pkgs < <(printf '%s\n' "${missing[@]}" | sort -u)
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
