#!/usr/bin/env bash
# `npm test`: install what the tests need (npm packages, the Temporal CLI, the Python and Go test
# agents of test/interop.test.ts, the cluster's server binaries), then run jest.
# jest's globalSetup starts one dev server for the run and its teardown stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
# The Temporal UI browser test needs Debian's chromium; a no-op once it is installed.
bash scripts/ensure-chromium.sh
echo "Temporal CLI: $(node_modules/.bin/tsx deploy/dev/temporal-cli.ts)"
# The agents on other SDKs, built once into the user cache; the suite's launcher reads these.
agents_env=$(bash scripts/setup-test-agents.sh)
while IFS='=' read -r key value; do export "$key=$value"; done <<< "$agents_env"
# test/cluster.test.ts runs the official server on PostgreSQL: build its binaries once per machine
# into the user cache (minutes the first time, about a second after), with progress lines.
node_modules/.bin/tsx deploy/cluster/build.ts
# Arguments (a file, a -t pattern): jest as asked.
if [ "$#" -gt 0 ]; then exec node_modules/.bin/jest "$@"; fi
# Everything but the cluster suite, then the cluster suite alone: its nine processes (PostgreSQL,
# four Temporal services, workers) would otherwise starve the other suites' child processes on a
# 2-core machine.
# Each run's results also go to a JSON file, so that the failures are printed once more at the end.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
status=0
node_modules/.bin/jest --testPathIgnorePatterns='/test/cluster\.test\.ts$' --json --outputFile="$results/main.json" || status=$?
echo "Cluster suite (test/cluster.test.ts), alone..."
node_modules/.bin/jest test/cluster.test.ts --json --outputFile="$results/cluster.json" || status=$?
if [ "$status" -ne 0 ]; then node_modules/.bin/tsx scripts/print-failures.ts "$results/main.json" "$results/cluster.json"; fi
exit "$status"
