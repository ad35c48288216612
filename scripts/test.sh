#!/usr/bin/env bash
# `npm test`: install what the tests need (npm packages, the Temporal CLI), then run jest.
# jest's globalSetup starts one dev server for the run and its teardown stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
# The Temporal UI browser test needs Debian's chromium; a no-op once it is installed.
bash scripts/ensure-chromium.sh
echo "Temporal CLI: $(node_modules/.bin/tsx scripts/temporal-cli.ts)"
exec node_modules/.bin/jest "$@"
