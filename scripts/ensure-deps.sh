#!/usr/bin/env bash
# Installs the npm packages when node_modules is missing or older than the lockfile, and compiles
# the CLI into dist/ (gitignored) when a source is newer than the last build (bin/compiled-cli.js).
# node_modules/.package-lock.json is npm's own record of what is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm packages (npm ci)..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
if ! node bin/compiled-cli.js; then
  echo "Compiling the planner CLI into dist/ (tsc; once after each change of the sources)..." >&2
  started=$SECONDS
  rm -f dist/.complete
  # A failed build is not fatal: bin/planner.js then runs the sources through tsx (seconds a call).
  if node_modules/.bin/tsc -p tsconfig.build.json >&2; then
    touch dist/.complete
    echo "Compiled the planner CLI in $((SECONDS - started)) s." >&2
  else
    echo "Compiling the CLI failed (above); \`planner\` runs its TypeScript sources through tsx until it compiles." >&2
  fi
fi
