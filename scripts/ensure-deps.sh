#!/usr/bin/env bash
# Installs the npm packages when node_modules is missing or older than the lockfile.
# node_modules/.package-lock.json is npm's own record of what is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm packages (npm ci)..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
