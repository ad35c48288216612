#!/usr/bin/env bash
# `npm start`: install what is missing, then run the planner on the embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
exec node_modules/.bin/tsx scripts/start.ts "$@"
