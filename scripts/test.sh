#!/usr/bin/env bash
# `npm test`: install what the tests need (npm packages, the Temporal CLI, the Python and Go test
# agents of test/interop.test.ts), then run jest.
# jest's globalSetup starts one dev server for the run and its teardown stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
# The Temporal UI browser test needs Debian's chromium; a no-op once it is installed.
bash scripts/ensure-chromium.sh
echo "Temporal CLI: $(node_modules/.bin/tsx scripts/temporal-cli.ts)"
# The agents on other SDKs, built once into the user cache; the suite's launcher reads these.
agents_env=$(bash scripts/setup-test-agents.sh)
while IFS='=' read -r key value; do export "$key=$value"; done <<< "$agents_env"
exec node_modules/.bin/jest "$@"
